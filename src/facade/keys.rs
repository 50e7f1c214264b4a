//! The façade's keys (docs/facade.md#keys): the table `uuid_facade_key` in
//! the extension's schema (`table.rs` finds, reads and writes it), read into
//! a per-backend cache of expanded AES key schedules.
//!
//! PUBLIC has no privilege on the table. Whoever may EXECUTE a façade
//! function reads it through that function, as the calling role, without
//! SQL (`table.rs`): nothing a role can plant or set is consulted.
//!
//! The cache is dropped whenever the table changes: the key functions, and
//! a statement trigger on the table for changes made in SQL (a superuser's,
//! a restore, logical replication's apply: the trigger fires there too),
//! send a relcache invalidation (at once to this backend, at commit to the
//! others, and through the WAL to standbys), which [`relcache_changed`]
//! receives (registered with the others in `callbacks.rs`). The table is read with the latest snapshot, whatever the
//! transaction's isolation level: an invalidation that arrived before the
//! read must be in what was read, or the cache would keep an old key after
//! its transaction. Inside a parallel query (where PostgreSQL gives no newer
//! snapshot) the statement's is used and the cache is kept only until the
//! transaction ends (or is prepared).

use std::cell::{Cell, RefCell};

use pgrx::prelude::*;
use uuid_ext_core::facade::Facade;

use super::error;
use super::table::{self, State};

/// One key that can still decode (current or retired).
pub struct Live {
    pub id: i32,
    pub facade: Facade,
}

/// What this backend knows of the table.
pub struct Keys {
    /// The current key (first) and the retired ones, newest first.
    pub live: Vec<Live>,
    pub has_current: bool,
    /// Read with the statement's snapshot: dropped at the transaction's end.
    provisional: bool,
    /// Every key id with its state, for errors that name a key.
    pub states: Vec<(i32, State)>,
}

impl Keys {
    pub fn current(&self) -> Option<&Live> {
        self.has_current.then(|| &self.live[0])
    }

    pub fn state(&self, id: i32) -> Option<State> {
        self.states.iter().find(|(k, _)| *k == id).map(|(_, s)| *s)
    }

    /// The key `id`, which must be live: an unknown or dropped id is 22023.
    pub fn live(&self, id: i32) -> &Live {
        match self.live.iter().find(|k| k.id == id) {
            Some(k) => k,
            None => error::facade_key_not_live(id, self.state(id) == Some(State::Dropped)),
        }
    }
}

thread_local! {
    static CACHE: RefCell<Option<Keys>> = const { RefCell::new(None) };
    /// The key table this backend last looked up, and how many
    /// invalidations of it arrived: a load during which one arrived may
    /// have read what the invalidation announced as changed, or not.
    static TABLE: Cell<pg_sys::Oid> = const { Cell::new(pg_sys::Oid::INVALID) };
    static CHANGES: Cell<u64> = const { Cell::new(0) };
}

/// Calls `f` with this backend's keys, loading them first if the table
/// changed since they were read.
pub fn with<R>(f: impl FnOnce(&Keys) -> R) -> R {
    while CACHE.with_borrow(|c| c.is_none()) {
        let before = CHANGES.get();
        let keys = load();
        // Kept only if no invalidation of the table arrived while loading;
        // else read again.
        if CHANGES.get() == before {
            CACHE.with_borrow_mut(|c| *c = Some(keys));
        }
    }
    CACHE.with_borrow(|c| f(c.as_ref().expect("loaded above")))
}

/// The relcache callback (`callbacks.rs`): an invalidation of the key
/// table, or of every relation, drops the cache.
pub fn relcache_changed(relid: pg_sys::Oid) {
    // InvalidOid: every relation's cache entry was dropped.
    if relid == pg_sys::InvalidOid || relid == TABLE.get() {
        CHANGES.set(CHANGES.get() + 1);
        CACHE.with_borrow_mut(|c| *c = None);
    }
}

/// At the end (or the PREPARE) of a top-level transaction
/// (`callbacks.rs`): a write the guard let through is over, and a cache
/// read with a statement's snapshot goes.
pub fn transaction_ended() {
    table::reset_writing();
    CACHE.with_borrow_mut(|c| {
        if c.as_ref().is_some_and(|k| k.provisional) {
            *c = None;
        }
    });
}

fn load() -> Keys {
    let table = table::table();
    TABLE.set(table.oid);
    let (rows, latest) = table.rows();
    // The current key first, then the retired ones (rows come newest first).
    let decoding = |state| rows.iter().filter(move |r: &&table::Row| r.state == state);
    let live: Vec<Live> = decoding(State::Current)
        .chain(decoding(State::Retired))
        .map(|row| Live {
            id: row.id,
            facade: Facade::new(
                row.key
                    .as_deref()
                    .unwrap_or_else(|| error::facade_key_corrupt(row.id)),
            ),
        })
        .collect();
    let has_current = decoding(State::Current).next().is_some();
    Keys {
        live,
        has_current,
        provisional: !latest,
        states: rows.iter().map(|r| (r.id, r.state)).collect(),
    }
}

/// The trigger on the key table: every statement that changes it drops
/// every backend's cache of it (this one's at the next command, the others'
/// when the change commits). Enabled ALWAYS, so logical replication's apply
/// fires it too.
#[pg_trigger]
fn uuid_facade_key_changed<'a>(
    trigger: &'a pgrx::PgTrigger<'a>,
) -> Result<Option<PgHeapTuple<'a, AllocatedByPostgres>>, pgrx::PgTriggerError> {
    let rel = trigger.relation()?;
    // SAFETY: queues an invalidation of a relation the trigger has open.
    unsafe { pg_sys::CacheInvalidateRelcacheByRelid(rel.oid()) };
    Ok(None)
}

/// The guard on the key table: a row changes only through the key
/// functions (or a superuser's own SQL, a restore of a dump that holds
/// keys); anyone else who may write the table (the extension's owner may
/// insert, for restoring its own dumps, which hold no rows;
/// `pg_write_all_data`) gets 42501.
#[pg_trigger]
fn uuid_facade_key_guard<'a>(
    trigger: &'a pgrx::PgTrigger<'a>,
) -> Result<Option<PgHeapTuple<'a, AllocatedByPostgres>>, pgrx::PgTriggerError> {
    if !table::writing() {
        // SAFETY: reads the current role's superuser flag.
        if !unsafe { pg_sys::superuser() } {
            error::facade_key_table_guarded();
        }
        // A superuser's own write, a restore: an error later in this
        // transaction (a key id the table has, say) would log the COPY line
        // or the INSERT it fails on, a key in it. Its errors are logged
        // without CONTEXT and STATEMENT until the transaction ends.
        for (name, value) in [
            (c"log_error_verbosity", c"terse"),
            (c"log_min_error_statement", c"panic"),
        ] {
            // SAFETY: a transaction-local setting a superuser may set.
            unsafe {
                pg_sys::set_config_option(
                    name.as_ptr(),
                    value.as_ptr(),
                    pg_sys::GucContext::PGC_SUSET,
                    pg_sys::GucSource::PGC_S_SESSION,
                    pg_sys::GucAction::GUC_ACTION_LOCAL,
                    true,
                    pgrx::PgLogLevel::ERROR as _,
                    false,
                );
            }
        }
    }
    Ok(trigger.new().or(trigger.old()))
}
