//! The façade on a Citus cluster (docs/facade.md#on-a-citus-cluster): the
//! keys the coordinator makes, rotates, retires, drops or imports reach
//! every worker in the same transaction, and only wrapped: each node holds
//! the database's cluster key (moved to it once by a superuser, as a key is
//! moved between databases), and the coordinator sends each key wrapped
//! under it (AES-256 key wrap: `uuid_ext_core::facade::wrap`). Citus sends
//! that command to the workers as SQL text, which a worker's `log_statement`
//! logs: so the text holds key ids, states, dates and wrapped keys, never a
//! key.
//!
//! Citus is found at run time: what a node is comes from Citus's catalog
//! tables, read as tables; the command goes out through the one Citus
//! function that sends a command to every other node within the
//! distributed transaction (see [`send`]). Without Citus in the database,
//! nothing here runs.

use std::ffi::{CStr, CString};

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::facade::{
    fingerprint, moves_forward, sync_tag, sync_tag_matches, unwrap, wrap, Held, SyncRow, KEY_LEN,
    WRAPPED_LEN,
};
use zeroize::Zeroizing;

use super::secret::superuser_only;
use super::set_guard;
use super::table::{self, KeyDatum, Row, State, Table};
use crate::error;

/// What this node is to the façade.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Node {
    /// No Citus in this database, or a coordinator without workers.
    Alone,
    /// A Citus coordinator with workers: it makes the keys and sends them.
    Coordinator,
    /// A Citus worker: it takes its keys from the coordinator.
    Worker,
}

/// Citus's catalog table `name` (in pg_catalog), if Citus is in this
/// database.
fn citus_catalog(name: &CStr) -> Option<pg_sys::Oid> {
    // SAFETY: catalog lookups by name, within pg_catalog.
    unsafe {
        if pg_sys::get_extension_oid(c"citus".as_ptr(), true) == pg_sys::InvalidOid {
            return None;
        }
        let oid = pg_sys::get_relname_relid(name.as_ptr(), pg_sys::PG_CATALOG_NAMESPACE.into());
        (oid != pg_sys::InvalidOid).then_some(oid)
    }
}

/// What this node is: from Citus's catalog (read as tables, without SQL),
/// its group (0 is the coordinator's) and, on the coordinator, whether it
/// has active workers.
pub fn node() -> Node {
    let Some(local) = citus_catalog(c"pg_dist_local_group") else {
        return Node::Alone;
    };
    let group = table::column(local, c"groupid");
    let mut here = 0;
    table::read(local, |values, nulls| {
        if !nulls[group] {
            here = values[group].value() as i32;
        }
    });
    if here != 0 {
        return Node::Worker;
    }
    if workers() == 0 {
        Node::Alone
    } else {
        Node::Coordinator
    }
}

/// The number of active workers, on a coordinator.
fn workers() -> i32 {
    let nodes = citus_catalog(c"pg_dist_node").expect("a coordinator has pg_dist_node");
    let (group, active) = (
        table::column(nodes, c"groupid"),
        table::column(nodes, c"isactive"),
    );
    let mut workers = 0;
    table::read(nodes, |values, nulls| {
        if !nulls[group]
            && values[group].value() as i32 != 0
            && !nulls[active]
            && values[active].value() != 0
        {
            workers += 1;
        }
    });
    workers
}

/// The cluster key table, `uuid_facade_cluster_key`: its OID and columns.
struct ClusterTable {
    oid: pg_sys::Oid,
    key: usize,
    fingerprint: usize,
    created: usize,
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
    }
}

/// This database's cluster key, if it has one.
fn cluster_key(t: &ClusterTable) -> Option<Zeroizing<[u8; KEY_LEN]>> {
    let mut found = None;
    table::read(t.oid, |values, nulls| {
        if !nulls[t.key] {
            let mut k = Zeroizing::new([0u8; KEY_LEN]);
            // SAFETY: a value of uuid_facade_secret: 32 bytes by reference.
            k.copy_from_slice(unsafe {
                std::slice::from_raw_parts(values[t.key].cast_mut_ptr::<u8>(), KEY_LEN)
            });
            found = Some(k);
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
    table::write(t.oid, |w| {
        w.insert(&[
            (t.key, Some(datum.datum())),
            (t.fingerprint, Some(table::text_datum(&text))),
            (t.created, Some(pg_sys::Datum::from(now))),
        ])
    });
    print
}

/// The cluster key's table, locked against another change of it, and the
/// key it holds; in a read-only transaction, 25006.
fn locked(function: &CStr) -> (ClusterTable, Option<Zeroizing<[u8; KEY_LEN]>>) {
    // SAFETY: raises 25006 when the transaction is read-only.
    unsafe { pg_sys::PreventCommandIfReadOnly(function.as_ptr()) };
    let t = cluster_table();
    // SAFETY: a lock on a relation that exists; released at transaction end.
    unsafe { pg_sys::LockRelationOid(t.oid, pg_sys::ShareRowExclusiveLock as _) };
    let key = cluster_key(&t);
    (t, key)
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
    if let Some(k) = existing {
        error::facade_cluster_key_exists(&fingerprint(&k));
    }
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    getrandom::fill(&mut key[..])
        .unwrap_or_else(|e| error::facade_key_random_unavailable(&e.to_string()));
    store(&t, &key)
}

/// The cluster key's 32 bytes, to move it to another node. Superusers only.
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_cluster_key_export() -> Vec<u8> {
    superuser_only("uuid_facade_cluster_key_export");
    let t = cluster_table();
    match cluster_key(&t) {
        Some(k) => k.to_vec(),
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
        Some(k) if *k == *key => fingerprint(&k),
        Some(k) => error::facade_cluster_key_exists(&fingerprint(&k)),
        None => store(&t, &key),
    }
}

/// Before a key function changes the keys: refused on a worker; on a
/// coordinator, the cluster key it will wrap them in.
pub fn before_change() -> Option<Zeroizing<[u8; KEY_LEN]>> {
    match node() {
        Node::Alone => None,
        Node::Worker => error::facade_keys_on_worker(),
        Node::Coordinator => {
            sender();
            Some(
                cluster_key(&cluster_table()).unwrap_or_else(|| {
                    error::facade_no_cluster_key("a key function on a coordinator")
                }),
            )
        }
    }
}

/// A SQL literal of `s`.
fn literal(s: &str) -> String {
    let c = CString::new(s).expect("no NUL");
    // SAFETY: quote_literal_cstr makes a new palloc'd C string.
    unsafe {
        let q = pg_sys::quote_literal_cstr(c.as_ptr());
        let out = CStr::from_ptr(q).to_string_lossy().into_owned();
        pg_sys::pfree(q.cast());
        out
    }
}

/// Bytes as a SQL expression of type bytea.
fn bytea(b: &[u8]) -> String {
    format!(
        "pg_catalog.decode('{}', 'hex')",
        b.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

/// The command that makes a worker's keys the coordinator's `rows`: each
/// key wrapped under the cluster key, the whole authenticated by
/// [`sync_tag`].
fn sync_command(rows: &[table::Row], cluster_key: &[u8; KEY_LEN], sender: &str) -> String {
    let extension = table::extension();
    // SAFETY: the schema's name, quoted as an identifier.
    let schema = unsafe {
        let name = pg_sys::get_namespace_name(extension.schema);
        CStr::from_ptr(pg_sys::quote_identifier(name))
            .to_string_lossy()
            .into_owned()
    };
    let wrapped: Vec<Option<[u8; WRAPPED_LEN]>> = rows
        .iter()
        .map(|r| r.key.as_ref().map(|k| wrap(cluster_key, k)))
        .collect();
    let states: Vec<String> = rows
        .iter()
        .map(|r| r.state.name().to_string_lossy().into_owned())
        .collect();
    let sent: Vec<SyncRow<'_>> = rows
        .iter()
        .zip(&wrapped)
        .zip(&states)
        .map(|((r, w), state)| SyncRow {
            id: r.id,
            state,
            wrapped: w.as_ref().map(|w| &w[..]),
            fingerprint: &r.fingerprint,
            created: r.created,
            retired: r.retired,
            dropped: r.dropped,
        })
        .collect();
    let tag = sync_tag(cluster_key, &database_name(), sender, &sent);
    let list =
        |items: Vec<String>, ty: &str| format!("ARRAY[{}]::pg_catalog.{ty}[]", items.join(","));
    let time = |t: Option<i64>| t.map_or("NULL".to_string(), |t| t.to_string());
    format!(
        "SELECT {schema}.uuid_facade_key_sync({}::pg_catalog.text, {}, {}, {}, {}, {}, {}, {}, {}::pg_catalog.text, {})",
        literal(&fingerprint(cluster_key)),
        list(sent.iter().map(|r| r.id.to_string()).collect(), "int4"),
        list(sent.iter().map(|r| literal(r.state)).collect(), "text"),
        list(
            sent.iter()
                .map(|r| r.wrapped.map_or("NULL".to_string(), bytea))
                .collect(),
            "bytea"
        ),
        list(
            sent.iter().map(|r| literal(r.fingerprint)).collect(),
            "text"
        ),
        list(sent.iter().map(|r| time(Some(r.created))).collect(), "int8"),
        list(sent.iter().map(|r| time(r.retired)).collect(), "int8"),
        list(sent.iter().map(|r| time(r.dropped)).collect(), "int8"),
        literal(sender),
        bytea(&tag),
    )
}

/// The name of role `oid`, which exists, as the catalog holds it.
fn role_name(oid: pg_sys::Oid) -> CString {
    // SAFETY: a catalog lookup of a role that exists (an error otherwise).
    unsafe { CStr::from_ptr(pg_sys::GetUserNameFromId(oid, false)) }.to_owned()
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

/// The extension's owner, who runs the coordinator's command on the
/// workers: refused (55000) when it is a superuser. On a worker the
/// command's function is looked up by the name of the extension's schema,
/// and the database's owner controls what that name finds there (it owns
/// `public`, and may rename it and make another, or, on a trusted install,
/// drop the extension and plant a function of that name): run as a
/// superuser, the command would run that code as one. Run as the owner, a
/// planted function runs with rights the planting role has anyway.
pub fn sender() -> pg_sys::Oid {
    let owner = table::extension().owner;
    // SAFETY: reads a role's superuser flag.
    if unsafe { pg_sys::superuser_arg(owner) } {
        error::facade_cluster_owner_superuser();
    }
    owner
}

/// Sends the key table, whole, to every worker, within this transaction:
/// Citus's `citus_internal.execute_command_on_remote_nodes_as_user(query,
/// user)`, which sends a command to every other node as part of the
/// distributed transaction (committed with it, by two-phase commit), called
/// as the C function it is (it requires a superuser to call it, so the call
/// is made as the bootstrap superuser), with the extension's owner as the
/// user the workers run it as ([`sender`]), and with
/// `citus.log_remote_commands` off, which any role may set to see the
/// commands Citus sends. What the command may change is bounded by its tag
/// (docs/facade.md#on-a-citus-cluster).
fn send(table: &Table, cluster_key: &[u8; KEY_LEN]) {
    let owner = sender();
    set_guard::refuse_if_sets_propagate();
    let (rows, _) = table.rows();
    let name = role_name(owner).to_string_lossy().into_owned();
    let command = CString::new(sync_command(&rows, cluster_key, &name)).expect("no NUL");
    // SAFETY: a lookup in the symbols of the libraries the server loaded.
    let f = unsafe {
        libc::dlsym(
            libc::RTLD_DEFAULT,
            c"execute_command_on_remote_nodes_as_user".as_ptr(),
        )
    };
    if f.is_null() {
        error::facade_citus_missing();
    }
    // Before the command goes out (docs/facade.md#on-a-citus-cluster).
    set_guard::guard_until_end();
    // SAFETY: Citus's version-1 function `Datum
    // execute_command_on_remote_nodes_as_user(PG_FUNCTION_ARGS)` (text,
    // text), called by PostgreSQL's fmgr as the bootstrap superuser; the
    // user id and the setting are restored after it, or by the
    // transaction's abort.
    unsafe {
        let f: unsafe extern "C-unwind" fn(pg_sys::FunctionCallInfo) -> pg_sys::Datum =
            std::mem::transmute(f);
        let user = CString::new(name).expect("a role's name has no NUL");
        let (query, user) = (
            pg_sys::Datum::from(pg_sys::cstring_to_text(command.as_ptr())),
            pg_sys::Datum::from(pg_sys::cstring_to_text(user.as_ptr())),
        );
        let nest = pg_sys::NewGUCNestLevel();
        pg_sys::set_config_option(
            c"citus.log_remote_commands".as_ptr(),
            c"off".as_ptr(),
            pg_sys::GucContext::PGC_SUSET,
            pg_sys::GucSource::PGC_S_SESSION,
            pg_sys::GucAction::GUC_ACTION_SAVE,
            true,
            0,
            false,
        );
        let mut saved = pg_sys::InvalidOid;
        let mut context = 0;
        pg_sys::GetUserIdAndSecContext(&mut saved, &mut context);
        pg_sys::SetUserIdAndSecContext(
            pg_sys::BOOTSTRAP_SUPERUSERID.into(),
            context | pg_sys::SECURITY_LOCAL_USERID_CHANGE as i32,
        );
        pg_sys::DirectFunctionCall2Coll(Some(f), pg_sys::InvalidOid, query, user);
        pg_sys::SetUserIdAndSecContext(saved, context);
        pg_sys::AtEOXact_GUC(true, nest);
    }
}

/// After a key function changed the keys on a coordinator: the workers get
/// them in the same transaction.
pub fn after_change(table: &Table, cluster_key: Option<&Zeroizing<[u8; KEY_LEN]>>) {
    if let Some(k) = cluster_key {
        send(table, k);
    }
}

/// Sends every key to every worker: for a worker added after the keys were
/// made (its cluster key moved to it first). Returns the number of
/// workers. On a coordinator of workers only (55000 elsewhere).
#[pg_extern(volatile, parallel_unsafe)]
fn uuid_facade_cluster_sync() -> i32 {
    // SAFETY: raises 25006 when the transaction is read-only.
    unsafe { pg_sys::PreventCommandIfReadOnly(c"uuid_facade_cluster_sync()".as_ptr()) };
    if node() != Node::Coordinator {
        error::facade_not_coordinator();
    }
    let key = cluster_key(&cluster_table())
        .unwrap_or_else(|| error::facade_no_cluster_key("uuid_facade_cluster_sync"));
    let table = table::table();
    table::lock(&table);
    send(&table, &key);
    workers()
}

/// A worker's side of the coordinator's command: makes this node's key
/// table hold the coordinator's rows, each key unwrapped with this node's
/// cluster key. Runs as the coordinator's extension owner, which the
/// authenticated command names (any other role: 42501), only on a Citus
/// worker, and takes only rows
/// whose tag this node's cluster key verifies (so made by a holder of the
/// cluster key: the coordinator) and that move its keys forward (so no
/// older command, replayed, takes a rotation back).
#[allow(clippy::too_many_arguments)]
#[pg_extern(volatile, strict, parallel_unsafe)]
fn uuid_facade_key_sync(
    cluster_fingerprint: &str,
    ids: Vec<i32>,
    states: Vec<String>,
    wrapped: pgrx::datum::Array<'_, &[u8]>,
    fingerprints: Vec<String>,
    created: Vec<i64>,
    retired: Vec<Option<i64>>,
    dropped: Vec<Option<i64>>,
    sender: &str,
    tag: &[u8],
) {
    if node() != Node::Worker {
        error::facade_sync_not_worker();
    }
    let wrapped: Vec<Option<&[u8]>> = wrapped.iter().collect();
    let n = ids.len();
    if [
        states.len(),
        wrapped.len(),
        fingerprints.len(),
        created.len(),
        retired.len(),
        dropped.len(),
    ]
    .iter()
    .any(|&l| l != n)
    {
        error::facade_sync_malformed();
    }
    let cluster = cluster_key(&cluster_table())
        .unwrap_or_else(|| error::facade_no_cluster_key("uuid_facade_key_sync"));
    if fingerprint(&cluster) != cluster_fingerprint {
        error::facade_cluster_key_differs(&fingerprint(&cluster), cluster_fingerprint);
    }
    let sent: Vec<SyncRow<'_>> = (0..n)
        .map(|i| SyncRow {
            id: ids[i],
            state: &states[i],
            wrapped: wrapped[i],
            fingerprint: &fingerprints[i],
            created: created[i],
            retired: retired[i],
            dropped: dropped[i],
        })
        .collect();
    if !sync_tag_matches(&cluster, &database_name(), sender, &sent, tag) {
        error::facade_sync_unauthenticated();
    }
    // SAFETY: reads the current user's OID.
    let user = role_name(unsafe { pg_sys::GetUserId() });
    if user.to_bytes() != sender.as_bytes() {
        error::facade_sync_wrong_role(sender, &user.to_string_lossy());
    }
    let rows: Vec<Row> = sent
        .iter()
        .map(|r| Row {
            id: r.id,
            state: State::parse(r.state.as_bytes()),
            key: r.wrapped.map(|w| {
                Zeroizing::new(
                    unwrap(&cluster, w).unwrap_or_else(|| error::facade_sync_malformed()),
                )
            }),
            fingerprint: r.fingerprint.to_string(),
            created: r.created,
            retired: r.retired,
            dropped: r.dropped,
        })
        .collect();
    let table = table::table();
    table::lock(&table);
    let (held, _) = table.rows();
    let (held, incoming) = (as_held(&held), as_held(&rows));
    if let Err(id) = moves_forward(&held, &incoming) {
        error::facade_sync_backwards(id);
    }
    table.put(&rows);
}

/// Rows as [`moves_forward`] compares them.
fn as_held(rows: &[Row]) -> Vec<Held<'_>> {
    rows.iter()
        .map(|r| Held {
            id: r.id,
            rank: match r.state {
                State::Current => 0,
                State::Retired => 1,
                State::Dropped => 2,
            },
            fingerprint: &r.fingerprint,
            created: r.created,
        })
        .collect()
}
