// SPDX-License-Identifier: Apache-2.0 (written for lychd's golden-file tests)
//! A tiny double-entry ledger.

use std::collections::BTreeMap;
use std::fmt::{self, Display};

/// Largest amount one entry may move.
pub const MAX_AMOUNT: i64 = 1_000_000;

/// One account's name.
pub type AccountName = String;

/// A posting between two accounts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub from: AccountName,
    pub to: AccountName,
    amount: i64,
}

/// Why an entry was refused.
#[derive(Debug)]
pub enum LedgerError {
    /// The amount was zero or negative.
    NotPositive(i64),
    TooLarge { amount: i64, max: i64 },
}

/// Anything that can be balanced.
pub trait Balanced {
    /// The balance of `account`.
    fn balance(&self, account: &str) -> i64;
    fn is_empty(&self) -> bool {
        true
    }
}

#[derive(Default)]
pub struct Ledger {
    entries: Vec<Entry>,
    balances: BTreeMap<AccountName, i64>,
}

impl Ledger {
    /// Records `entry` after checking its amount.
    pub fn post(&mut self, entry: Entry) -> Result<(), LedgerError> {
        if entry.amount <= 0 {
            return Err(LedgerError::NotPositive(entry.amount));
        }
        *self.balances.entry(entry.from.clone()).or_default() -= entry.amount;
        *self.balances.entry(entry.to.clone()).or_default() += entry.amount;
        self.entries.push(entry);
        Ok(())
    }
}

impl Balanced for Ledger {
    fn balance(&self, account: &str) -> i64 {
        self.balances.get(account).copied().unwrap_or(0)
    }
}

impl Display for LedgerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

pub fn total<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> i64 {
    entries.into_iter().map(|e| e.amount).sum()
}

mod audit {
    //! Consistency checks run before a ledger is saved.
    pub(crate) fn check() -> bool {
        true
    }
}

macro_rules! entry {
    ($from:expr => $to:expr, $amount:expr) => {
        Entry { from: $from.into(), to: $to.into(), amount: $amount }
    };
}
