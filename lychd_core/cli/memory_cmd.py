"""``lychd memory add|forget|query|rebuild|stats|check|copy`` on the configured store of a workspace."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.table import Table

from lychd_core.cli.loading import CONFIG_HELP, checked_config, command_config
from lychd_core.cli.output import add_json_flag, console, emit_json, plain
from lychd_core.config import LychdConfig
from lychd_core.errors import ConfigError
from lychd_core.memory import ClaimType, MemoryQuery, MemoryScope, RetrievalPlan, ScopePolicy, load_records_file
from lychd_core.registry import get_registry
from lychd_core.roles import RoleProfile
from lychd_core.stores import MemoryStore
from lychd_core.stores.copy import copy_memory_store
from lychd_core.stores.factory import describe_store, open_memory_store


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser("memory", help="add, forget, query and inspect derived memories")
    actions = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--config", help=CONFIG_HELP)
    common.add_argument("--workspace", default=".", help="workspace root holding the state directory (default: .)")
    add_json_flag(common)

    add = actions.add_parser("add", parents=[common], help="add records from a JSON file (one record or a list)")
    add.add_argument("file", help="JSON file of records (see docs/memory.md)")
    add.set_defaults(func=run_add)

    forget = actions.add_parser("forget", parents=[common], help="forget a memory, leaving a content-free tombstone")
    forget.add_argument("memory_id", metavar="ID")
    forget.add_argument("--reason", required=True, help="why it is forgotten (kept in the tombstone)")
    forget.add_argument("--observation", type=int, required=True, help="logical observation of the deletion")
    forget.set_defaults(func=run_forget)

    query = actions.add_parser("query", parents=[common], help="retrieve memories for a scope, with explanations")
    query.add_argument("--project")
    query.add_argument("--scope-workspace", help="the scope's workspace name (not a directory)")
    query.add_argument("--repository")
    query.add_argument("--actor")
    query.add_argument("--role", help="role asking; applies the configured role policy's visibility")
    query.add_argument("--scope-role", help="the scope's role (a record scoped to a role); default: none")
    query.add_argument("--claim-type", action="append", default=[], choices=[t.value for t in ClaimType])
    query.add_argument("--feature", action="append", default=[], help="relevance feature (repeatable)")
    query.add_argument("--require-feature", action="append", default=[], help="required feature (repeatable)")
    query.add_argument("--min-confidence", type=int, default=0, help="basis points 0..10000")
    query.add_argument("--min-supporting", type=int, default=0)
    query.add_argument("--max-review-age", type=int)
    query.add_argument("--now", type=int, help="current logical observation (default: the store's latest)")
    query.add_argument("--limit", type=int, default=10)
    query.add_argument("--max-tokens", type=int)
    query.add_argument("--explain", action="store_true", help="explain every record, selected or excluded")
    query.add_argument(
        "--exact-scope",
        action="store_true",
        help="only records whose scope equals the query's (default: broader record scopes apply too)",
    )
    query.set_defaults(func=run_query)

    rebuild = actions.add_parser("rebuild", parents=[common], help="rebuild the index and print its digest")
    rebuild.set_defaults(func=run_rebuild)

    stats = actions.add_parser("stats", parents=[common], help="counts, schema version and index digest")
    stats.set_defaults(func=run_stats)

    check = actions.add_parser("check", parents=[common], help="verify every stored record against its digest")
    check.set_defaults(func=run_check)

    copy = actions.add_parser(
        "copy", parents=[common], help="copy the store to the memory store another config names, verifying digests"
    )
    copy.add_argument("--to", required=True, metavar="CONFIG", help="TOML config whose [stores.memory] receives it")
    copy.set_defaults(func=run_copy)


def _config(args: argparse.Namespace) -> LychdConfig:
    return command_config(args)


def _open(args: argparse.Namespace, *, create: bool) -> MemoryStore:
    return open_memory_store(_config(args), Path(args.workspace), create=create)


def run_add(args: argparse.Namespace) -> int:
    records = load_records_file(args.file)
    with _open(args, create=True) as store:
        added = store.add_many(records)
    result = {"file": args.file, "records": len(records), "added": added, "unchanged": len(records) - added}
    if args.json:
        emit_json(result)
    else:
        console.print(
            f"added {added} of {len(records)} record(s) from {plain(args.file)} ({result['unchanged']} unchanged)"
        )
    return 0


def run_forget(args: argparse.Namespace) -> int:
    with _open(args, create=False) as store:
        stone = store.forget(args.memory_id, args.reason, args.observation)
    if args.json:
        emit_json(stone.to_json())
    else:
        console.print(
            f"forgot {plain(stone.memory_id)} at revision {stone.revision} (observation {stone.deleted_at}); "
            f"tombstone keeps digest {stone.prior_digest}",
            soft_wrap=True,
        )
    return 0


def _role_profile(config: LychdConfig, role: str) -> RoleProfile:
    return config.role_profile(role, get_registry())


def run_query(args: argparse.Namespace) -> int:
    config = _config(args)
    with open_memory_store(config, Path(args.workspace), create=False) as store:
        now = store.last_observation() if args.now is None else args.now
        query = MemoryQuery(
            scope=MemoryScope(
                project=args.project,
                workspace=args.scope_workspace,
                repository=args.repository,
                actor=args.actor,
                role=args.scope_role,  # --role names the asking role (its profile), not the scope
            ),
            now=now,
            role_profile=None if args.role is None else _role_profile(config, args.role),
            claim_types=frozenset(ClaimType(t) for t in args.claim_type),
            features=tuple(sorted(set(args.feature))),
            required_features=tuple(sorted(set(args.require_feature))),
            min_confidence=args.min_confidence,
            min_supporting=args.min_supporting,
            max_review_age=args.max_review_age,
            limit=args.limit,
            max_tokens=args.max_tokens,
            scope_policy=ScopePolicy.EXACT if args.exact_scope else ScopePolicy.INCLUDE_BROADER,
        )
        plan = store.query(query)
        if args.json:
            data = plan.to_json(explain=args.explain)
            data["evidence"] = [evidence.to_json() for evidence in plan.evidence()]
            emit_json(data)
        else:
            _print_plan(plan, explain=args.explain)
    return 0


def _print_plan(plan: RetrievalPlan, *, explain: bool) -> None:
    table = Table(title=f"memories for now={plan.query.now}: {len(plan.selected)} selected, {plan.tokens} tokens")
    for column in ("rank", "id", "rev", "type", "source", "score", "tokens", "claim"):
        table.add_column(column, overflow="fold")
    for evidence, record in zip(plan.evidence(), plan.selected, strict=True):
        table.add_row(
            str(evidence.rank),
            plain(evidence.memory_id),
            str(evidence.revision),
            evidence.claim_type.value,
            evidence.source_provenance.value,
            str(evidence.scores["total"]),
            str(evidence.token_estimate),
            plain(record.claim),
        )
    console.print(table)
    if explain:
        why = Table(title="every record, explained")
        for column in ("id", "rev", "status", "reason", "detail"):
            why.add_column(column, overflow="fold")
        for item in plan.explanations:
            why.add_row(
                plain(item.memory_id),
                str(item.revision),
                "selected" if item.selected else "excluded",
                "-" if item.reason is None else item.reason.value,
                plain(item.detail),
            )
        console.print(why)
    console.print(f"plan digest {plan.digest}", soft_wrap=True)


def run_rebuild(args: argparse.Namespace) -> int:
    with _open(args, create=False) as store:
        index = store.rebuild_index()
    if args.json:
        emit_json({"digest": index.digest, "active": len(index.records), "tombstones": len(index.tombstones)})
    else:
        print(index.digest)
    return 0


def run_stats(args: argparse.Namespace) -> int:
    with _open(args, create=False) as store:
        stats = store.stats()
    if args.json:
        emit_json(stats)
        return 0
    table = Table(title="lychd memory")
    table.add_column("key")
    table.add_column("value", overflow="fold")
    for key, value in stats.items():
        table.add_row(key, plain(str(value)))
    console.print(table)
    return 0


def run_check(args: argparse.Namespace) -> int:
    with _open(args, create=False) as store:
        result = store.check()
        result["index_digest"] = store.rebuild_index().digest
    if args.json:
        emit_json(result)
    else:
        console.print(f"ok: {result['revisions']} revision(s) verified; index digest {result['index_digest']}")
    return 0


def run_copy(args: argparse.Namespace) -> int:
    workspace = Path(args.workspace)
    source_config, target_config = _config(args), checked_config(args.to)
    source_at = describe_store(source_config, source_config.stores.memory, workspace)
    target_at = describe_store(target_config, target_config.stores.memory, workspace)
    if source_at == target_at:
        raise ConfigError(f"memory copy: --to {args.to} names the same store as the source ({source_at})")
    with (
        open_memory_store(source_config, workspace, create=False) as source,
        open_memory_store(target_config, workspace, create=True) as target,
    ):
        result = {"from": source_at, "to": target_at, **copy_memory_store(source, target)}
    if args.json:
        emit_json(result)
    else:
        console.print(
            f"copied {result['revisions']} revision(s) and {result['tombstones']} tombstone(s) from "
            f"{plain(source_at)} to {plain(target_at)}; both index digests are {result['index_digest']}",
            soft_wrap=True,
        )
    return 0
