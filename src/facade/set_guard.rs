//! What Citus may send on the extension owner's connection to a worker
//! besides the keys' command (docs/facade.md#on-a-citus-cluster).
//!
//! With `citus.propagate_set_commands = local` (a setting any role may
//! change), Citus sends the text of a transaction's `SET LOCAL`s, `RESET`s
//! and `SET TRANSACTION`s on its worker connections: to those open, at
//! once, and to those opened later, at their start. The text is the whole
//! query string the statement came in, so a string of several statements
//! sends them all. The connection [`super::cluster`] opens runs as the
//! extension's owner: a caller who may change keys would run its own SQL
//! there as that owner. So this library's utility hook (it runs before
//! Citus's, since Citus's library must load first) notes each such
//! statement while Citus passes them on; a key change refuses to send in a
//! transaction that had one ([`refuse_if_sets_propagate`]), and after it
//! has sent, each such statement refuses until the transaction ends
//! ([`guard_until_end`]). Citus keeps what it would send to itself, so a
//! transaction in which the library was loaded cannot vouch for what came
//! before: a key change there refuses too.

use std::cell::Cell;
use std::ffi::{c_char, c_void, CStr};

use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::error;

thread_local! {
    /// This transaction had a SET that Citus would pass on.
    static SET_SEEN: Cell<bool> = const { Cell::new(false) };
    /// This transaction sent the keys' command.
    static SENT: Cell<bool> = const { Cell::new(false) };
    /// The library was loaded in this transaction (the hook saw only part of it).
    static LOADED_IN_IT: Cell<bool> = const { Cell::new(false) };
    static PREVIOUS: Cell<pg_sys::ProcessUtility_hook_type> = const { Cell::new(None) };
}

/// At the library's load: the hook and the end-of-transaction callback.
pub fn install() {
    // SAFETY: chains a hook and registers a callback for the life of the
    // process, once (from _PG_init).
    unsafe {
        PREVIOUS.set(pg_sys::ProcessUtility_hook);
        pg_sys::ProcessUtility_hook = Some(process_utility);
        pg_sys::RegisterXactCallback(Some(transaction_ended), std::ptr::null_mut());
        LOADED_IN_IT.set(pg_sys::IsTransactionState());
    }
}

/// 55000 where Citus may hold a SET's text that it would send on a
/// connection opened now.
pub fn refuse_if_sets_propagate() {
    if SET_SEEN.get() {
        error::facade_set_propagated();
    }
    if LOADED_IN_IT.get() {
        error::facade_loaded_in_transaction();
    }
}

/// From now until this transaction ends, a SET that Citus would pass on
/// refuses (55000). Called before the command goes out: a send that fails
/// part way, in a subtransaction the caller rolls back, may leave the
/// owner's connection in the transaction.
pub fn guard_until_end() {
    SENT.set(true);
}

#[pg_guard]
unsafe extern "C-unwind" fn transaction_ended(event: pg_sys::XactEvent::Type, _arg: *mut c_void) {
    // Not at PREPARE TRANSACTION: Citus keeps what it would send until the
    // session's next commit or abort, and so do we.
    if matches!(
        event,
        pg_sys::XactEvent::XACT_EVENT_COMMIT
            | pg_sys::XactEvent::XACT_EVENT_ABORT
            | pg_sys::XactEvent::XACT_EVENT_PARALLEL_COMMIT
            | pg_sys::XactEvent::XACT_EVENT_PARALLEL_ABORT
    ) {
        SET_SEEN.set(false);
        SENT.set(false);
        LOADED_IN_IT.set(false);
    }
}

/// Whether Citus passes SETs on now (its setting, as it reads it).
fn citus_propagates_sets() -> bool {
    // SAFETY: reads a setting's value by name; null where Citus is absent.
    let value =
        unsafe { pg_sys::GetConfigOption(c"citus.propagate_set_commands".as_ptr(), true, false) };
    // SAFETY: a NUL-terminated string PostgreSQL keeps.
    !value.is_null() && unsafe { CStr::from_ptr(value) }.to_bytes() != b"none"
}

#[pg_guard]
#[allow(clippy::too_many_arguments)]
unsafe extern "C-unwind" fn process_utility(
    pstmt: *mut pg_sys::PlannedStmt,
    query_string: *const c_char,
    read_only_tree: bool,
    context: pg_sys::ProcessUtilityContext::Type,
    params: pg_sys::ParamListInfo,
    query_env: *mut pg_sys::QueryEnvironment,
    dest: *mut pg_sys::DestReceiver,
    qc: *mut pg_sys::QueryCompletion,
) {
    // SAFETY: the statement PostgreSQL hands every utility hook.
    let is_set = unsafe {
        !(*pstmt).utilityStmt.is_null()
            && (*(*pstmt).utilityStmt).type_ == pg_sys::NodeTag::T_VariableSetStmt
    };
    if is_set && citus_propagates_sets() {
        if SENT.get() {
            error::facade_set_after_send();
        }
        SET_SEEN.set(true);
    }
    // SAFETY: the next hook, or PostgreSQL's own, with the arguments given.
    // An ERROR in it longjmps past this frame, which holds nothing to drop
    // (pgrx's pg_guard_ffi_boundary here aborted the backend: an ERROR
    // caught by PL/pgSQL inside CREATE EXTENSION became a non-unwinding
    // panic).
    unsafe {
        match PREVIOUS.get() {
            Some(previous) => previous(
                pstmt,
                query_string,
                read_only_tree,
                context,
                params,
                query_env,
                dest,
                qc,
            ),
            None => pg_sys::standard_ProcessUtility(
                pstmt,
                query_string,
                read_only_tree,
                context,
                params,
                query_env,
                dest,
                qc,
            ),
        }
    }
}
