//! The façade's errors (docs/facade.md#errors), with their SQLSTATEs. A
//! [`Refusal`] is an error the setting `uuid_ext.facade_sync` reports from
//! its check hook, as PostgreSQL's settings report theirs.

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::{pg_sys, PgLogLevel, PgSqlErrorCode};

use crate::error::raise;

/// What a restore loses when it leaves out the extension's key table.
const FACADE_RESTORE_HINT: &str = "Make one with SELECT uuid_facade_key_create(); its faces differ from any made before. \
     A database restored without uuid_ext's table uuid_facade_key (a schema-only dump, or one that excluded it) has lost its keys: \
     restore that table's data from the same dump to decode the faces made before.";

/// 55000: a façade function needs the current key, and there is none.
#[track_caller]
pub fn facade_no_current_key(function: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("{function}() needs a current facade key, and this database has none"),
        Some("SELECT * FROM uuid_facade_keys lists this database's keys and their states."),
        Some(FACADE_RESTORE_HINT),
    )
}

/// 22023: a key id that names no key that can decode.
#[track_caller]
pub fn facade_key_not_live(id: i32, dropped: bool) -> ! {
    let message = if dropped {
        format!("facade key {id} was dropped")
    } else {
        format!("facade key {id} does not exist in this database")
    };
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        message,
        Some("SELECT * FROM uuid_facade_keys lists this database's keys and their states."),
        None,
    )
}

/// 22023: `uuid_facade_key_import()` given other than a 32-byte key.
#[track_caller]
pub fn facade_key_length(found: usize) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        format!("a facade key is 32 bytes (AES-256), not {found}"),
        Some("Pass the bytea uuid_facade_key_export() gave."),
        None,
    )
}

/// 22023: `uuid_facade_key_import()` given a key this database has.
#[track_caller]
pub fn facade_key_duplicate(id: i32) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
        format!("this database already has that key: facade key {id}"),
        None,
        None,
    )
}

/// 55000: the extension's key table is not where the extension is.
#[track_caller]
pub fn facade_table_missing() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "uuid_ext's facade key table uuid_facade_key is missing from the extension's schema".into(),
        None,
        Some("Reinstall with DROP EXTENSION uuid_ext; CREATE EXTENSION uuid_ext; (this loses the keys), or restore the table."),
    )
}

/// XX000: the key table could not be read or written.
#[track_caller]
pub fn facade_table_unreadable(cause: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        "could not use uuid_ext's facade key table".into(),
        Some(cause),
        None,
    )
}

/// XX001: a live key without bytes (the table's check forbids it).
#[track_caller]
pub fn facade_key_corrupt(id: i32) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_DATA_CORRUPTED,
        format!("facade key {id} is not dropped but has no bytes"),
        None,
        None,
    )
}

/// XX000: the operating system gave no random bytes for a façade key.
#[track_caller]
pub fn facade_key_random_unavailable(cause: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        "could not draw a facade key from the operating system's random generator".into(),
        Some(cause),
        None,
    )
}

/// 54000: every key id up to 2147483647 is taken.
#[track_caller]
pub fn facade_key_ids_exhausted() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
        "no facade key id is left: the largest, 2147483647, is taken".into(),
        None,
        None,
    )
}

/// 42501: a role other than a superuser wrote the key table in SQL.
#[track_caller]
pub fn facade_key_table_guarded() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        "the facade's keys change only through uuid_ext's key functions".into(),
        Some("uuid_facade_key_create(), uuid_facade_key_retire(), uuid_facade_key_drop() and uuid_facade_key_import() change them; a superuser restores a dump that holds them."),
        None,
    )
}

/// 42501: a role other than a superuser asked for a key's bytes (the key
/// table's `key` column, of type `uuid_facade_secret`).
#[track_caller]
pub fn facade_secret_hidden() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        "only a superuser may see a facade key's bytes".into(),
        None,
        Some("The view uuid_facade_keys shows the keys without them."),
    )
}

/// 42501: a role other than a superuser made a `uuid_facade_secret`.
#[track_caller]
pub fn facade_secret_input() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        "only a superuser may make a value of type uuid_facade_secret".into(),
        Some("Keys are made with uuid_facade_key_create() and moved with uuid_facade_key_export() and uuid_facade_key_import()."),
        None,
    )
}

/// 22P02: text for a `uuid_facade_secret` that is not 32 bytes in hex.
#[track_caller]
pub fn facade_secret_text() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION,
        "invalid input syntax for type uuid_facade_secret".into(),
        Some("A facade key is written as \\x and 64 hexadecimal digits (32 bytes)."),
        None,
    )
}

/// 22P03: binary input for a `uuid_facade_secret` that is not 32 bytes.
#[track_caller]
pub fn facade_secret_binary(found: i32) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INVALID_BINARY_REPRESENTATION,
        format!("invalid binary input for type uuid_facade_secret: {found} bytes, not 32"),
        None,
        None,
    )
}

/// A WARNING, not an ERROR: `uuid_facade_key_import()` given the published
/// test key of docs/facade.md#test-vectors.
#[track_caller]
pub fn facade_test_key_warning() {
    ErrorReport::new(
        PgSqlErrorCode::ERRCODE_WARNING,
        "this is the published test key of uuid_ext's documentation: anyone can decode the faces it makes",
        "uuid_ext",
    )
    .set_hint("Use it only in tests; a production database makes its key with uuid_facade_key_create().")
    .report(PgLogLevel::WARNING);
}

/// 53200: a context too long for the memory there is.
#[track_caller]
pub fn facade_out_of_memory() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OUT_OF_MEMORY,
        "out of memory".into(),
        Some("A facade context did not fit in memory."),
        None,
    )
}

// --- the façade on a Citus cluster (docs/facade.md#on-a-citus-cluster) -----

const CLUSTER_DOCS: &str = "docs/facade.md#on-a-citus-cluster says how: uuid_facade_cluster_key_create() on the coordinator, moved to each worker with uuid_facade_cluster_key_export() and uuid_facade_cluster_key_import().";

/// 55000: a key function on a Citus worker.
#[track_caller]
pub fn facade_keys_on_worker() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "on a Citus worker the facade's keys come from the coordinator".into(),
        Some("Make, rotate, retire, drop and import keys on the coordinator: each change reaches every worker in the same transaction."),
        None,
    )
}

/// 55000: the cluster key is needed and this database has none.
#[track_caller]
pub fn facade_no_cluster_key(function: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("{function} needs this database's facade cluster key, and this node has none"),
        Some("On a Citus cluster the facade's keys travel to the workers wrapped under a cluster key every node holds."),
        Some(CLUSTER_DOCS),
    )
}

/// 55000: a cluster key is there already (another one given or made).
#[track_caller]
pub fn facade_cluster_key_exists(print: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("this database has a facade cluster key already: fingerprint {print}"),
        Some("A database has one cluster key; every node of the cluster holds the same one."),
        None,
    )
}

/// 55000: `uuid_facade_cluster_sync()` where there are no workers.
#[track_caller]
pub fn facade_not_coordinator() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "uuid_facade_cluster_sync() runs on a Citus coordinator that has workers".into(),
        None,
        None,
    )
}

/// 42501: a superuser-only key function called by another role.
#[track_caller]
pub fn facade_superuser_only(function: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_PRIVILEGE,
        format!("only a superuser may call {function}()"),
        Some("It moves key material between databases."),
        None,
    )
}

/// 55000: a coordinator's key change where Citus is not a version whose
/// sending function uuid_ext was tested with.
#[track_caller]
pub fn facade_citus_version(tested: &[&str], found: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        format!("uuid_ext sends the facade's keys to the workers of Citus {}, not of Citus {found}", tested.join(", ")),
        Some("On a Citus coordinator a key change reaches the workers through a function of Citus that Citus does not document, and each version of Citus is tested before uuid_ext calls it."),
        Some("Use a release of uuid_ext tested with this version of Citus: docs/facade.md#on-a-citus-cluster."),
    )
}

/// XX000: a tested version of Citus whose library lacks the function.
#[track_caller]
pub fn facade_citus_missing(version: &str) -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
        format!("Citus {version}'s library does not have the function uuid_ext sends the facade's keys to the workers with"),
        Some("The library loaded is not the one this database's Citus extension was installed from."),
        None,
    )
}

/// 55000: a key change on a coordinator before `ALTER EXTENSION uuid_ext
/// UPDATE` gave the cluster key table its generation.
#[track_caller]
pub fn facade_cluster_not_updated() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "the facade's keys cannot reach the workers before ALTER EXTENSION uuid_ext UPDATE".into(),
        Some("This node runs a newer uuid_ext library than the extension installed in this database."),
        Some(UPDATE),
    )
}

/// 55000: 0.9.0's `uuid_facade_key_sync(…)`, called with a newer library.
#[track_caller]
pub fn facade_sync_removed() -> ! {
    raise(
        PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
        "uuid_facade_key_sync() is gone from uuid_ext's library since 0.10.0".into(),
        Some(
            "A Citus worker takes the coordinator's keys as the setting uuid_ext.facade_sync now.",
        ),
        Some("Run ALTER EXTENSION uuid_ext UPDATE (on a Citus cluster, on the coordinator)."),
    )
}

// --- what a worker refuses of a sealed key set ------------------------------

const SYNC_SET_BY: &str = "uuid_ext.facade_sync carries a Citus coordinator's facade keys to its workers: its key functions set it there, within their transaction.";
const UPDATE: &str = "Install the new library on every node, then run ALTER EXTENSION uuid_ext UPDATE on the coordinator.";

/// What a worker refuses of a key set, reported from the setting's check
/// hook (PostgreSQL raises it as the SET's ERROR).
pub enum Refusal {
    /// 55000: set other than by SET within a transaction.
    SetByHand,
    /// 55000: set on a node that is not a Citus worker.
    NotWorker,
    /// 25006: in a read-only transaction or on a standby.
    ReadOnly,
    /// 55000: this worker has no cluster key.
    NoClusterKey,
    /// 55000: this worker's extension is older than its library.
    NotUpdated,
    /// 22023: not a sealed key set.
    Malformed,
    /// 55000: sealed under another cluster key (here, the coordinator's).
    ClusterKeyDiffers(String, String),
    /// 42501: the tag does not verify.
    Unauthenticated,
    /// 42501: sealed for another database.
    OtherDatabase(String),
    /// 42501: sealed for another role (it, the current one).
    OtherRole(String, String),
    /// 55000: not newer than what this worker holds (it, held).
    Older(i64, i64),
    /// 53200: no memory for it.
    OutOfMemory,
}

impl Refusal {
    fn parts(
        &self,
    ) -> (
        PgSqlErrorCode,
        String,
        Option<&'static str>,
        Option<&'static str>,
    ) {
        use PgSqlErrorCode::*;
        use Refusal::*;
        let m = |s: &str| format!("uuid_ext.facade_sync {s}");
        match self {
            SetByHand => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, m("is set only by SET, within a transaction"), Some(SYNC_SET_BY), None),
            NotWorker => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, m("is taken only on a Citus worker"), Some(SYNC_SET_BY), None),
            ReadOnly => (ERRCODE_READ_ONLY_SQL_TRANSACTION, m("cannot be taken in a read-only transaction"), None, None),
            NoClusterKey => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, "this Citus worker has no facade cluster key, so it cannot take the coordinator's keys".into(),
                Some("On a Citus cluster the facade's keys travel to the workers wrapped under a cluster key every node holds."), Some(CLUSTER_DOCS)),
            NotUpdated => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, "this Citus worker cannot take the coordinator's keys before ALTER EXTENSION uuid_ext UPDATE".into(), None, Some(UPDATE)),
            Malformed => (ERRCODE_INVALID_PARAMETER_VALUE, m("was given something that is not a coordinator's sealed facade keys"), Some(SYNC_SET_BY), None),
            ClusterKeyDiffers(here, theirs) => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!("this node's facade cluster key (fingerprint {here}) is not the coordinator's ({theirs})"), None, Some(CLUSTER_DOCS)),
            Unauthenticated => (ERRCODE_INSUFFICIENT_PRIVILEGE, m("was given keys that this node's facade cluster key does not authenticate"),
                Some("Only the coordinator's key functions seal keys a worker takes."), None),
            OtherDatabase(d) => (ERRCODE_INSUFFICIENT_PRIVILEGE, m(&format!("was given keys sealed for the database {d}, not this one")), None, None),
            OtherRole(r, user) => (ERRCODE_INSUFFICIENT_PRIVILEGE, m(&format!("was given keys sealed for the role {r}, not {user}")),
                Some("A key set is taken only from the role whose key change on the coordinator sealed it."), None),
            Older(g, held) => (ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE, m(&format!("was given keys of generation {g}, and this worker holds generation {held}")),
                Some("A worker takes each key set of its coordinator once, newest last: an older one, sent again, is refused."), None),
            OutOfMemory => (ERRCODE_OUT_OF_MEMORY, "out of memory".into(), Some("The facade keys given to uuid_ext.facade_sync did not fit in memory."), None),
        }
    }

    /// Hands the error to PostgreSQL's setting machinery, whose check hook
    /// is returning false.
    pub fn for_setting(self) {
        let (code, message, detail, hint) = self.parts();
        let copy = |s: &str| {
            let c = std::ffi::CString::new(s.replace('\0', "")).expect("no NUL left");
            // SAFETY: a palloc'd copy, which outlives the SET's error.
            unsafe { pg_sys::pstrdup(c.as_ptr()) }
        };
        // SAFETY: the globals a check hook sets to word its error.
        unsafe {
            pg_sys::GUC_check_errcode(code as i32);
            pg_sys::GUC_check_errmsg_string = copy(&message);
            if let Some(d) = detail {
                pg_sys::GUC_check_errdetail_string = copy(d);
            }
            if let Some(h) = hint {
                pg_sys::GUC_check_errhint_string = copy(h);
            }
        }
    }
}
