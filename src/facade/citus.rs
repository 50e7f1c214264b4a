//! Everything uuid_ext assumes of Citus (docs/facade.md#on-a-citus-cluster),
//! in one file: what a node is, from Citus's catalog tables (read as
//! tables, without SQL), and how a command reaches every worker within
//! the distributed transaction.
//!
//! Citus documents no function that sends a command to every other node as
//! part of the caller's distributed transaction (its `run_command_on_*`
//! functions commit on their own). Its C function
//! `execute_command_on_remote_nodes_as_user(query text, username text)`
//! does: it runs the query on every other node, on the connection of the
//! named user that belongs to the transaction, and commits it there by
//! two-phase commit. It is internal: it has no SQL declaration, so it is
//! found in Citus's library, and only with a Citus whose version uuid_ext
//! was tested with ([`TESTED`]); any other refuses (55000) before
//! anything is called. The command uuid_ext sends names no function,
//! operator or relation (a `SET` and a `SHOW`, see `cluster.rs`), and it
//! runs on the workers as the role that called on the coordinator.

use std::ffi::CStr;

use pgrx::pg_sys;

use super::error;
use super::table;

/// The versions of Citus (`pg_extension.extversion`) whose internal
/// sending function uuid_ext has been tested with.
pub const TESTED: &[&str] = &["14.0-1"];

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

/// Citus's extension in this database, if it is there.
fn citus() -> Option<pg_sys::Oid> {
    // SAFETY: a catalog lookup by name.
    let oid = unsafe { pg_sys::get_extension_oid(c"citus".as_ptr(), true) };
    (oid != pg_sys::InvalidOid).then_some(oid)
}

/// Citus's catalog table `name` (in pg_catalog), if Citus is in this
/// database.
fn catalog(name: &CStr) -> Option<pg_sys::Oid> {
    citus()?;
    // SAFETY: a catalog lookup by name, within pg_catalog.
    let oid =
        unsafe { pg_sys::get_relname_relid(name.as_ptr(), pg_sys::PG_CATALOG_NAMESPACE.into()) };
    (oid != pg_sys::InvalidOid).then_some(oid)
}

/// What this node is: from Citus's catalog, its group (0 is the
/// coordinator's) and, on the coordinator, whether it has active workers.
pub fn node() -> Node {
    let Some(local) = catalog(c"pg_dist_local_group") else {
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
        Node::Worker
    } else if workers() == 0 {
        Node::Alone
    } else {
        Node::Coordinator
    }
}

/// The number of active workers, on a coordinator.
pub fn workers() -> i32 {
    let Some(nodes) = catalog(c"pg_dist_node") else {
        return 0;
    };
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

/// Citus's version in this database (`pg_extension.extversion`).
fn version(extension: pg_sys::Oid) -> String {
    table::extension_row(extension, |tuple, desc| {
        let mut null = true;
        // SAFETY: a column of the tuple being read, copied out as text.
        unsafe {
            let d = pg_sys::heap_getattr(
                tuple,
                pg_sys::Anum_pg_extension_extversion as _,
                desc,
                &mut null,
            );
            if null {
                return String::new();
            }
            let c = pg_sys::text_to_cstring(d.cast_mut_ptr());
            let v = CStr::from_ptr(c).to_string_lossy().into_owned();
            pg_sys::pfree(c.cast());
            v
        }
    })
    .unwrap_or_default()
}

type Function = unsafe extern "C-unwind" fn(pg_sys::FunctionCallInfo) -> pg_sys::Datum;
type Finfo = unsafe extern "C" fn() -> *const pg_sys::Pg_finfo_record;

/// Citus's sending function, once its version is one tested and its
/// library says it is a version-1 function (the calling convention every
/// such function shares); else 55000 or XX000.
fn sender_function() -> Function {
    let citus = citus().unwrap_or_else(|| error::facade_citus_version(TESTED, "none"));
    let version = version(citus);
    if !TESTED.contains(&version.as_str()) {
        error::facade_citus_version(TESTED, &version);
    }
    // SAFETY: lookups in the symbols of the libraries the server loaded;
    // the record function of a version-1 function returns a static record.
    unsafe {
        let f = libc::dlsym(
            libc::RTLD_DEFAULT,
            c"execute_command_on_remote_nodes_as_user".as_ptr(),
        );
        let finfo = libc::dlsym(
            libc::RTLD_DEFAULT,
            c"pg_finfo_execute_command_on_remote_nodes_as_user".as_ptr(),
        );
        if f.is_null() || finfo.is_null() {
            error::facade_citus_missing(&version);
        }
        let finfo: Finfo = std::mem::transmute(finfo);
        let record = finfo();
        if record.is_null() || (*record).api_version != 1 {
            error::facade_citus_missing(&version);
        }
        std::mem::transmute::<*mut std::ffi::c_void, Function>(f)
    }
}

/// Runs `command` on every other node of the cluster, within this
/// transaction (committed with it by two-phase commit, or with it rolled
/// back), on the connection of `user`, the role that runs it there. An
/// error there makes this transaction fail when it commits (Citus reports
/// the worker's error as a WARNING at once).
pub fn send(command: &CStr, user: &CStr) {
    let f = sender_function();
    // SAFETY: Citus's version-1 function (text, text), called by
    // PostgreSQL's fmgr. It requires a superuser to call it: the call is
    // made as the bootstrap superuser and the caller's user id is restored
    // after it (or by the transaction's abort). The command is sent as
    // `user`, not as the superuser.
    unsafe {
        let (query, user) = (
            pg_sys::Datum::from(pg_sys::cstring_to_text(command.as_ptr())),
            pg_sys::Datum::from(pg_sys::cstring_to_text(user.as_ptr())),
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
    }
}
