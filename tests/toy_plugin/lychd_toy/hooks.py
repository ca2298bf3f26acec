"""Hook implementations only."""

from __future__ import annotations

from lychd_core.hookspecs import Register, hookimpl
from lychd_toy.plugins import EmailFinder, HeadCompressor, ToyRoles, UpperProfile, WordCount


@hookimpl
def lychd_register_projection_profiles(register: Register) -> None:
    register(UpperProfile())


@hookimpl
def lychd_register_compressors(register: Register) -> None:
    register(HeadCompressor())


@hookimpl
def lychd_register_role_policies(register: Register) -> None:
    register(ToyRoles())


@hookimpl
def lychd_register_privacy_profiles(register: Register) -> None:
    register(EmailFinder())


@hookimpl
def lychd_register_ranking_profiles(register: Register) -> None:
    register(WordCount())
