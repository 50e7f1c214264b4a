//! The façade on a Citus cluster (docs/facade.md#on-a-citus-cluster): the
//! keys the coordinator makes, rotates, retires, drops or imports reach
//! every worker in the same transaction, sealed.
//!
//! Each node holds the database's cluster key (moved to it once by a
//! superuser, as a key is moved between databases). After each key change
//! the coordinator seals its whole key table under it
//! (`uuid_ext_core::keyset`: each key wrapped, the whole authenticated, for
//! this database, the calling role and a generation that only grows) and
//! sends the workers one statement, on the caller's own connections of the
//! distributed transaction (`citus.rs`):
//!
//! ```sql
//! SET LOCAL uuid_ext.facade_sync TO '<the sealed key set, in hex>'; SHOW uuid_ext.facade_generation
//! ```
//!
//! A setting names no function, operator or relation: nothing a database
//! owner can plant on a worker runs, as anyone. The worker's library opens
//! the message in the setting's check hook ([`check_sync`]) with its own
//! cluster key, database, current role and generation, and makes its key
//! table the coordinator's; a message that does not open is refused
//! there, and the coordinator's transaction fails. The `SHOW` fails on a
//! worker that has not loaded uuid_ext's library (where the `SET` would
//! only make a placeholder). The text a worker's `log_statement` logs
//! holds ids, states, dates and wrapped keys, never a key.

use std::ffi::{c_char, c_void, CStr, CString};

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::facade::{fingerprint, KEY_LEN};
use uuid_ext_core::keyset::{self, Refused};
use zeroize::Zeroizing;

use super::citus::{self, Node};
use super::error;
use super::error::Refusal;
use super::secret::{superuser_only, SecretBytes};
use super::table::{self, KeyDatum, Table};

/// The cluster key table, `uuid_facade_cluster_key`: its OID and columns.
struct ClusterTable {
    oid: pg_sys::Oid,
    key: usize,
    fingerprint: usize,
    created: usize,
    /// The key set's generation this node last sent or took; None in a
    /// database not yet updated to this release (`ALTER EXTENSION`).
    generation: Option<usize>,
}

/// What the cluster key table holds.
struct Held {
    key: Zeroizing<[u8; KEY_LEN]>,
    generation: i64,
}

fn cluster_table() -> ClusterTable {
    let extension = table::extension();
    let oid = table::member(&extension, c"uuid_facade_cluster_key")
        .unwrap_or_else(|| error::facade_table_missing());
    ClusterTable {
        oid,
        key: table::column(oid, c"key"),
        fingerprint: table::column(oid, c"fingerprint"),
        created: table::column(oid, c"created"),
        generation: table::column_if_any(oid, c"generation"),
    }
}

/// This database's cluster key and generation, if it has a cluster key.
fn held(t: &ClusterTable) -> Option<Held> {
    let mut found = None;
    table::read(t.oid, |values, nulls| {
        if !nulls[t.key] {
            let mut key = Zeroizing::new([0u8; KEY_LEN]);
            // SAFETY: a value of uuid_facade_secret: 32 bytes by reference.
            key.copy_from_slice(unsafe {
                std::slice::from_raw_parts(values[t.key].cast_mut_ptr::<u8>(), KEY_LEN)
            });
            let generation = t
                .generation
                .filter(|&g| !nulls[g])
                .map_or(0, |g| values[g].value() as i64);
            found = Some(Held { key, generation });
        }
    });
    found
}

fn store(t: &ClusterTable, key: &[u8; KEY_LEN]) -> String {
    let print = fingerprint(key);
    let text = CString::new(print.as_str()).expect("hex has no NUL");
    let datum = KeyDatum::secret(key);
    // SAFETY: reads the transaction's start time.
    let now = unsafe { pg_sys::GetCurrentTransactionStartTimestamp() };
    let mut values = vec![
        (t.key, Some(datum.datum())),
        (t.fingerprint, Some(table::text_datum(&text))),
        (t.created, Some(pg_sys::Datum::from(now))),
    ];
    if let Some(g) = t.generation {
        values.push((g, Some(pg_sys::Datum::from(0i64))));
    }
    table::write(t.oid, |w| w.insert(&values));
    print
}

/// Records the generation this node sent or took.
fn set_generation(t: &ClusterTable, generation: i64) {
    let g = t
        .generation
        .unwrap_or_else(|| error::facade_cluster_not_updated());
    table::write(t.oid, |w| {
        w.update(
            |_, _| true,
            |values, nulls| {
                values[g] = pg_sys::Datum::from(generation);
                nulls[g] = false;
            },
        )
    });
}

/// The cluster key's table, locked against another change of it, and what
/// it holds; in a read-only transaction, 25006.
fn locked(function: &CStr) -> (ClusterTable, Option<Held>) {
    // SAFETY: raises 25006 when the transaction is read-only.
    unsafe { pg_sys::PreventCommandIfReadOnly(function.as_ptr()) };
    let t = cluster_table();
    // SAFETY: a lock on a relation that exists; released at transaction end.
    unsafe { pg_sys::LockRelationOid(t.oid, pg_sys::ShareRowExclusiveLock as _) };
    let held = held(&t);
    (t, held)
}

/// Makes this database's cluster key from the operating system's random
/// generator and returns its fingerprint. Superusers only; one per
/// database (55000 when there is one). On a Citus coordinator, before its
/// first façade key; then moved to each worker
/// (docs/facade.md#on-a-citus-cluster).
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_cluster_key_create() -> String {
    superuser_only("uuid_facade_cluster_key_create");
    let (t, existing) = locked(c"uuid_facade_cluster_key_create()");
    if let Some(h) = existing {
        error::facade_cluster_key_exists(&fingerprint(&h.key));
    }
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    getrandom::fill(&mut key[..])
        .unwrap_or_else(|e| error::facade_key_random_unavailable(&e.to_string()));
    store(&t, &key)
}

/// The cluster key's 32 bytes, to move it to another node. Superusers only.
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_cluster_key_export() -> SecretBytes {
    superuser_only("uuid_facade_cluster_key_export");
    match held(&cluster_table()) {
        Some(h) => SecretBytes(h.key),
        None => error::facade_no_cluster_key("uuid_facade_cluster_key_export"),
    }
}

/// Takes another node's cluster key as this database's; returns its
/// fingerprint. The same key again does nothing; another one is 55000.
/// Superusers only.
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_cluster_key_import(key: &[u8]) -> String {
    superuser_only("uuid_facade_cluster_key_import");
    let key = Zeroizing::new(
        <[u8; KEY_LEN]>::try_from(key).unwrap_or_else(|_| error::facade_key_length(key.len())),
    );
    let (t, existing) = locked(c"uuid_facade_cluster_key_import()");
    match existing {
        Some(h) if *h.key == *key => fingerprint(&h.key),
        Some(h) => error::facade_cluster_key_exists(&fingerprint(&h.key)),
        None => store(&t, &key),
    }
}

/// A key change on a coordinator: the cluster key the keys go out under.
pub struct Sending {
    table: ClusterTable,
    held: Held,
}

/// Before a key function changes the keys: refused on a worker; on a
/// coordinator, what the change is sent with (its cluster key's table
/// locked, so changes are sent in the order they commit).
pub fn before_change() -> Option<Sending> {
    match citus::node() {
        Node::Alone => None,
        Node::Worker => error::facade_keys_on_worker(),
        Node::Coordinator => Some(sending("a key function on a coordinator")),
    }
}

fn sending(function: &str) -> Sending {
    let (table, held) = locked(c"a facade key change");
    let held = held.unwrap_or_else(|| error::facade_no_cluster_key(function));
    Sending { table, held }
}

/// After a key function changed the keys on a coordinator: the workers get
/// them in the same transaction.
pub fn after_change(keys: &Table, sending: Option<Sending>) {
    if let Some(s) = sending {
        send(keys, s);
    }
}

/// The name of the database this session is connected to.
fn database_name() -> String {
    // SAFETY: the name of the session's own database, which exists.
    unsafe {
        CStr::from_ptr(pg_sys::get_database_name(pg_sys::MyDatabaseId))
            .to_string_lossy()
            .into_owned()
    }
}

/// The name of role `oid`, as the catalog holds it.
fn role_name(oid: pg_sys::Oid) -> CString {
    // SAFETY: a role that exists (an error otherwise); its name is copied.
    unsafe { CStr::from_ptr(pg_sys::GetUserNameFromId(oid, false)) }.to_owned()
}

/// The current role's name.
fn current_role() -> CString {
    // SAFETY: reads the current role's OID.
    role_name(unsafe { pg_sys::GetUserId() })
}

/// The role whose connections carry a key change to the workers: the
/// caller, as any of its distributed statements; a superuser's change goes
/// as the database's owner instead. Citus opens each worker connection of a
/// distributed transaction with `SELECT assign_distributed_transaction_id(…)`,
/// a name it does not qualify, which the database's owner decides on a
/// worker: a superuser's own connection would run the owner's function
/// there as a superuser. As the owner, it runs as its author.
fn sender() -> CString {
    // SAFETY: reads the current role's OID and superuser flag, and the
    // session's database's owner from the catalog.
    unsafe {
        let user = pg_sys::GetUserId();
        if !pg_sys::superuser_arg(user) {
            return role_name(user);
        }
        let tuple = pg_sys::SearchSysCache1(
            pg_sys::SysCacheIdentifier::DATABASEOID as _,
            pg_sys::Datum::from(pg_sys::MyDatabaseId),
        );
        if tuple.is_null() {
            error::facade_table_unreadable("the session's database is not in pg_database");
        }
        let owner = (*pg_sys::heap_tuple_get_struct::<pg_sys::FormData_pg_database>(tuple)).datdba;
        pg_sys::ReleaseSysCache(tuple);
        role_name(owner)
    }
}

/// Seals this node's key table for the workers, at a generation above
/// every one before (the clock in microseconds, or one more than the
/// last), and sends it on the connections of [`sender`].
fn send(keys: &Table, s: Sending) {
    let role = sender();
    let (rows, _) = keys.rows();
    // SAFETY: reads the clock.
    let now = unsafe { pg_sys::GetCurrentTimestamp() };
    let generation = now.max(s.held.generation.saturating_add(1));
    let sealed = keyset::seal(
        &s.held.key,
        &database_name(),
        &role.to_string_lossy(),
        generation,
        &rows,
    );
    let hex: String = sealed.iter().map(|b| format!("{b:02x}")).collect();
    let command = CString::new(format!(
        "SET LOCAL uuid_ext.facade_sync TO '{hex}'; SHOW uuid_ext.facade_generation"
    ))
    .expect("hex has no NUL");
    set_generation(&s.table, generation);
    citus::send(&command, &role);
}

/// Sends every key to every worker: for a worker added after the keys were
/// made (its cluster key moved to it first). Returns the number of
/// workers. On a coordinator of workers only (55000 elsewhere).
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_cluster_sync() -> i32 {
    // SAFETY: raises 25006 when the transaction is read-only.
    unsafe { pg_sys::PreventCommandIfReadOnly(c"uuid_facade_cluster_sync()".as_ptr()) };
    if citus::node() != Node::Coordinator {
        error::facade_not_coordinator();
    }
    let s = sending("uuid_facade_cluster_sync");
    let keys = table::table();
    table::lock(&keys);
    send(&keys, s);
    citus::workers()
}

static mut FACADE_GENERATION: *mut c_char = std::ptr::null_mut();
static mut FACADE_SYNC: *mut c_char = std::ptr::null_mut();

/// `uuid_ext.facade_generation`, read with SHOW, and `uuid_ext.facade_sync`,
/// the channel of the key sets (`_PG_init`).
pub fn define_settings() {
    crate::guc::define_hidden(
        c"uuid_ext.facade_generation",
        c"The generation of the facade key set this node last sent or took on a Citus cluster (0: none).",
        &raw mut FACADE_GENERATION,
        None,
        Some(show_generation),
    );
    crate::guc::define_hidden(
        c"uuid_ext.facade_sync",
        c"A Citus coordinator's sealed facade keys, which its key functions set on each worker.",
        &raw mut FACADE_SYNC,
        Some(check_sync),
        None,
    );
}

#[pg_guard]
unsafe extern "C-unwind" fn show_generation() -> *const c_char {
    crate::guc::shown(generation_shown())
}

/// The generation of the key set this node holds (0 when it has taken or
/// sent none), for `SHOW uuid_ext.facade_generation`, to a role that may
/// read the cluster key's table (it tells when the keys last changed);
/// else, or without the table, "none". Never an error: PostgreSQL 15's
/// `pg_settings` asks every setting, hidden ones too.
fn generation_shown() -> String {
    // SAFETY: reads the transaction state, and the catalog by name and OID.
    let readable = unsafe {
        pg_sys::IsTransactionState()
            && pg_sys::get_extension_oid(c"uuid_ext".as_ptr(), true) != pg_sys::InvalidOid
    } && {
        let extension = table::extension();
        table::member(&extension, c"uuid_facade_cluster_key")
            .filter(|&oid| {
                table::column_if_any(oid, c"generation").is_some()
                // SAFETY: a privilege check of the current role on a table.
                && unsafe {
                    pg_sys::pg_class_aclcheck(oid, pg_sys::GetUserId(), pg_sys::ACL_SELECT as _)
                        == pg_sys::AclResult::ACLCHECK_OK
                }
            })
            .is_some()
    };
    if !readable {
        return "none".into();
    }
    held(&cluster_table()).map_or("0".into(), |h| h.generation.to_string())
}

/// The check hook of `uuid_ext.facade_sync`: a worker takes the
/// coordinator's sealed key set (the hook's own, so a refusal is the SET's
/// error with its SQLSTATE). Empty is the setting's value at rest; the
/// value given is emptied once taken.
#[pg_guard]
unsafe extern "C-unwind" fn check_sync(
    newval: *mut *mut c_char,
    _extra: *mut *mut c_void,
    source: pg_sys::GucSource::Type,
) -> bool {
    // SAFETY: the hook's argument, a malloc'd C string PostgreSQL owns.
    let value = unsafe { CStr::from_ptr(*newval) };
    if value.is_empty() {
        return true;
    }
    let result = if source != pg_sys::GucSource::PGC_S_SESSION
        // SAFETY: reads the transaction state.
        || !unsafe { pg_sys::IsTransactionState() }
    {
        Err(Refusal::SetByHand)
    } else {
        take(value.to_bytes())
    };
    match result {
        Ok(()) => {
            // SAFETY: empties the string in place (PostgreSQL frees it).
            unsafe { std::ptr::write_bytes(*newval, 0, value.to_bytes().len()) };
            true
        }
        Err(refusal) => {
            refusal.for_setting();
            false
        }
    }
}

/// A worker's side of a key change: makes this node's key table the
/// coordinator's, from its sealed message in hex.
fn take(hex: &[u8]) -> Result<(), Refusal> {
    if citus::node() != Node::Worker {
        return Err(Refusal::NotWorker);
    }
    // SAFETY: reads the transaction's and the server's state.
    if unsafe { pg_sys::RecoveryInProgress() || pg_sys::XactReadOnly } {
        return Err(Refusal::ReadOnly);
    }
    let message = from_hex(hex)?;
    let t = cluster_table();
    if t.generation.is_none() {
        return Err(Refusal::NotUpdated);
    }
    let role = current_role();
    // Opened before any lock is taken (any role may set the setting), at
    // whatever generation; then, under the locks a coordinator's change
    // takes (the cluster key's table, then the keys'), only if newer than
    // what this node holds by then.
    let open = |held: &Held, generation| {
        keyset::open(
            &held.key,
            &database_name(),
            &role.to_string_lossy(),
            generation,
            &message,
        )
        .map_err(|r| match r {
            Refused::Malformed => Refusal::Malformed,
            Refused::ClusterKeyDiffers(theirs) => {
                Refusal::ClusterKeyDiffers(fingerprint(&held.key), theirs)
            }
            Refused::Unauthenticated => Refusal::Unauthenticated,
            Refused::OtherDatabase(d) => Refusal::OtherDatabase(d),
            Refused::OtherRole(r) => Refusal::OtherRole(r, role.to_string_lossy().into()),
            Refused::Older(g) => Refusal::Older(g, generation),
            Refused::OutOfMemory => Refusal::OutOfMemory,
        })
    };
    let unlocked = held(&t).ok_or(Refusal::NoClusterKey)?;
    open(&unlocked, i64::MIN)?;
    // SAFETY: a lock on a relation that exists; released at transaction end.
    unsafe { pg_sys::LockRelationOid(t.oid, pg_sys::ShareRowExclusiveLock as _) };
    let keys = table::table();
    table::lock(&keys);
    let held = held(&t).ok_or(Refusal::NoClusterKey)?;
    let opened = open(&held, held.generation)?;
    // SAFETY: pushes a snapshot for the writes' constraint and trigger
    // checks (a SET runs without one), popped below or by an abort.
    unsafe { pg_sys::PushActiveSnapshot(pg_sys::GetTransactionSnapshot()) };
    keys.replace(&opened.rows);
    set_generation(&t, opened.generation);
    // SAFETY: pops what was pushed above.
    unsafe { pg_sys::PopActiveSnapshot() };
    Ok(())
}

/// The bytes of a hex string; an allocation that cannot be made is 53200,
/// not an abort.
fn from_hex(hex: &[u8]) -> Result<Vec<u8>, Refusal> {
    if !hex.len().is_multiple_of(2) {
        return Err(Refusal::Malformed);
    }
    let mut out = Vec::new();
    out.try_reserve_exact(hex.len() / 2)
        .map_err(|_| Refusal::OutOfMemory)?;
    for pair in hex.chunks(2) {
        let digit = |c: u8| (c as char).to_digit(16);
        match (digit(pair[0]), digit(pair[1])) {
            (Some(a), Some(b)) => out.push((a * 16 + b) as u8),
            _ => return Err(Refusal::Malformed),
        }
    }
    Ok(out)
}

/// 0.9.0's workers' side, `uuid_facade_key_sync(…)`, which 0.10.0's update
/// drops: its C symbol stays, so that 0.9.0's install script (an update
/// from it, `pg_upgrade`, a restore) still loads with this library, and it
/// refuses (55000) when called.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn uuid_facade_key_sync_wrapper(
    _fcinfo: pg_sys::FunctionCallInfo,
) -> pg_sys::Datum {
    error::facade_sync_removed()
}

#[unsafe(no_mangle)]
#[doc(hidden)]
pub extern "C" fn pg_finfo_uuid_facade_key_sync_wrapper() -> &'static pg_sys::Pg_finfo_record {
    const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
    &V1
}
