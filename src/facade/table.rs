//! The façade's key table as PostgreSQL stores it (docs/design.md#the-façades-keys):
//! found through the extension's catalog entry, read with a heap scan and
//! written through the executor's single-row path (the one logical
//! replication applies rows with), as the calling role.
//!
//! No SQL runs here: no name is looked up in any `search_path`, no plan is
//! made (so no planner, executor or logging hook and no `debug_print_*`
//! setting sees a key), and no role is switched to, so no object another
//! role planted can run in the key table owner's place. What a role may do
//! with the table in SQL is what its privileges say (sql/facade.sql); these
//! functions are reached only through the key functions' EXECUTE grants.

use std::cell::Cell;
use std::ffi::CStr;
use std::ptr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use uuid_ext_core::facade::KEY_LEN;
use zeroize::Zeroizing;

use crate::error;

/// A key's state as the table spells it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    Current,
    Retired,
    Dropped,
}

impl State {
    fn parse(s: &[u8]) -> State {
        match s {
            b"current" => State::Current,
            b"retired" => State::Retired,
            _ => State::Dropped,
        }
    }

    fn name(self) -> &'static CStr {
        match self {
            State::Current => c"current",
            State::Retired => c"retired",
            State::Dropped => c"dropped",
        }
    }
}

/// One row of the table, as the façade needs it.
pub struct Row {
    pub id: i32,
    pub state: State,
    /// None for a dropped key.
    pub key: Option<Zeroizing<[u8; KEY_LEN]>>,
}

/// The columns' numbers, found by name.
#[derive(Clone, Copy)]
struct Columns {
    key_id: usize,
    state: usize,
    key: usize,
    fingerprint: usize,
    created: usize,
    retired: usize,
    dropped: usize,
}

/// How the key column holds a key: 0.8.1's `uuid_facade_secret` (32
/// bytes), or 0.8.0's `bytea`, which a database has between installing
/// this library and `ALTER EXTENSION uuid_ext UPDATE`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum KeyType {
    Secret,
    Bytea,
}

/// The key table of the installed extension.
pub struct Table {
    pub oid: pg_sys::Oid,
    columns: Columns,
    key_type: KeyType,
}

/// The extension's schema, from its row of `pg_extension` (by OID: the
/// catalog function that does this is not exported before PostgreSQL 16).
fn extension_schema(extension: pg_sys::Oid) -> pg_sys::Oid {
    // SAFETY: a catalog scan by the index on pg_extension's OID, as
    // PostgreSQL's own extension.c does; the tuple is read before the scan
    // ends.
    unsafe {
        let rel = pg_sys::table_open(pg_sys::ExtensionRelationId, pg_sys::AccessShareLock as _);
        let mut key = pg_sys::ScanKeyData::default();
        pg_sys::ScanKeyInit(
            &mut key,
            pg_sys::Anum_pg_extension_oid as _,
            pg_sys::BTEqualStrategyNumber as _,
            pg_sys::Oid::from(pg_sys::F_OIDEQ),
            pg_sys::Datum::from(extension),
        );
        let scan = pg_sys::systable_beginscan(
            rel,
            pg_sys::Oid::from(pg_sys::ExtensionOidIndexId),
            true,
            ptr::null_mut(),
            1,
            &mut key,
        );
        let tuple = pg_sys::systable_getnext(scan);
        let schema = if tuple.is_null() {
            pg_sys::InvalidOid
        } else {
            (*pg_sys::heap_tuple_get_struct::<pg_sys::FormData_pg_extension>(tuple)).extnamespace
        };
        pg_sys::systable_endscan(scan);
        pg_sys::table_close(rel, pg_sys::AccessShareLock as _);
        schema
    }
}

/// The installed extension's key table: the relation named
/// `uuid_facade_key` in the extension's schema that is a member of the
/// extension (the only one: a schema holds one relation of a name).
pub fn table() -> Table {
    // SAFETY: catalog lookups by OID and by name within one schema.
    unsafe {
        let extension = pg_sys::get_extension_oid(c"uuid_ext".as_ptr(), true);
        if extension == pg_sys::InvalidOid {
            error::facade_table_missing();
        }
        let schema = extension_schema(extension);
        let oid = pg_sys::get_relname_relid(c"uuid_facade_key".as_ptr(), schema);
        if oid == pg_sys::InvalidOid
            || pg_sys::get_rel_relkind(oid) != pg_sys::RELKIND_RELATION as std::ffi::c_char
            || pg_sys::getExtensionOfObject(pg_sys::RelationRelationId, oid) != extension
        {
            error::facade_table_missing();
        }
        let column = |name: &CStr| {
            let n = pg_sys::get_attnum(oid, name.as_ptr());
            if n <= 0 {
                error::facade_table_unreadable(&format!(
                    "uuid_facade_key has no column {}",
                    name.to_string_lossy()
                ));
            }
            n as usize - 1
        };
        let key_type = match pg_sys::get_atttype(oid, (column(c"key") + 1) as _) {
            t if t == pg_sys::BYTEAOID => KeyType::Bytea,
            t if pg_sys::get_typlen(t) == KEY_LEN as i16 => KeyType::Secret,
            _ => error::facade_table_unreadable(
                "uuid_facade_key's column key has a type uuid_ext does not know",
            ),
        };
        Table {
            oid,
            key_type,
            columns: Columns {
                key_id: column(c"key_id"),
                state: column(c"state"),
                key: column(c"key"),
                fingerprint: column(c"fingerprint"),
                created: column(c"created"),
                retired: column(c"retired"),
                dropped: column(c"dropped"),
            },
        }
    }
}

/// Takes the lock that puts key changes in a line (as `LOCK TABLE ... IN
/// SHARE ROW EXCLUSIVE MODE` would), until the transaction ends.
pub fn lock(table: &Table) {
    // SAFETY: a lock on a relation that exists; released at transaction end.
    unsafe { pg_sys::LockRelationOid(table.oid, pg_sys::ShareRowExclusiveLock as _) }
}

/// The snapshot a read or write uses: the latest one, after the
/// invalidations that arrived (a commit is visible before it sends its
/// invalidations, so a change whose invalidation was counted is in it) —
/// whatever the transaction's isolation level; inside a parallel query,
/// where PostgreSQL gives no newer snapshot, the statement's. Registered
/// until dropped.
struct Snap {
    snapshot: pg_sys::Snapshot,
    latest: bool,
}

impl Snap {
    fn take() -> Snap {
        // SAFETY: reads and registers PostgreSQL's snapshots.
        unsafe {
            let latest = !pg_sys::IsInParallelMode();
            let snapshot = if latest {
                pg_sys::AcceptInvalidationMessages();
                pg_sys::RegisterSnapshot(pg_sys::GetLatestSnapshot())
            } else {
                pg_sys::GetActiveSnapshot()
            };
            Snap { snapshot, latest }
        }
    }
}

impl Drop for Snap {
    fn drop(&mut self) {
        if self.latest {
            // SAFETY: unregisters what take() registered (an ERROR before
            // this leaves it to the resource owner's cleanup).
            unsafe { pg_sys::UnregisterSnapshot(self.snapshot) }
        }
    }
}

/// Calls `f` with each row's values and nulls (valid only during the
/// call) and its tuple, as `snapshot` shows them.
unsafe fn scan(
    rel: pg_sys::Relation,
    snapshot: pg_sys::Snapshot,
    mut f: impl FnMut(&[pg_sys::Datum], &[bool], pg_sys::HeapTuple),
) {
    // SAFETY (the caller's): `rel` is open and locked; each tuple is used
    // before the next is fetched.
    unsafe {
        let desc = (*rel).rd_att;
        let n = (*desc).natts as usize;
        let mut values = vec![pg_sys::Datum::from(0); n];
        let mut nulls = vec![true; n];
        let scan = pg_sys::systable_beginscan(
            rel,
            pg_sys::InvalidOid,
            false,
            snapshot,
            0,
            ptr::null_mut(),
        );
        loop {
            let tuple = pg_sys::systable_getnext(scan);
            if tuple.is_null() {
                break;
            }
            pg_sys::heap_deform_tuple(tuple, desc, values.as_mut_ptr(), nulls.as_mut_ptr());
            f(&values, &nulls, tuple);
        }
        pg_sys::systable_endscan(scan);
    }
}

impl Table {
    /// A row's fields from its values; the key copied out (never through a
    /// type's output function).
    unsafe fn row(&self, values: &[pg_sys::Datum], nulls: &[bool]) -> Row {
        let c = self.columns;
        // SAFETY (the caller's): values of this table's row, with their
        // nulls: key_id int4, state text, key 32 bytes by reference.
        unsafe {
            let id = if nulls[c.key_id] {
                0
            } else {
                values[c.key_id].value() as i32
            };
            let state = if nulls[c.state] {
                State::Dropped
            } else {
                let text = pg_sys::text_to_cstring(values[c.state].cast_mut_ptr());
                let state = State::parse(CStr::from_ptr(text).to_bytes());
                pg_sys::pfree(text.cast());
                state
            };
            let key = (!nulls[c.key]).then(|| {
                let mut k = Zeroizing::new([0u8; KEY_LEN]);
                match self.key_type {
                    KeyType::Secret => k.copy_from_slice(std::slice::from_raw_parts(
                        values[c.key].cast_mut_ptr::<u8>(),
                        KEY_LEN,
                    )),
                    KeyType::Bytea => {
                        let v = pg_sys::pg_detoast_datum_packed(values[c.key].cast_mut_ptr());
                        let bytes = std::slice::from_raw_parts(
                            pgrx::varlena::vardata_any(v).cast::<u8>(),
                            pgrx::varlena::varsize_any_exhdr(v),
                        );
                        match <&[u8; KEY_LEN]>::try_from(bytes) {
                            Ok(b) => k.copy_from_slice(b),
                            Err(_) => error::facade_key_corrupt(id),
                        }
                    }
                }
                k
            });
            Row { id, state, key }
        }
    }

    /// Every row, newest key first, as the latest snapshot shows them (the
    /// statement's inside a parallel query: then the second value is false).
    pub fn rows(&self) -> (Vec<Row>, bool) {
        // SAFETY: the table is opened, scanned and closed here; the lock is
        // kept until the transaction ends, as a query's would be.
        unsafe {
            let rel = pg_sys::table_open(self.oid, pg_sys::AccessShareLock as _);
            let snap = Snap::take();
            let mut rows = Vec::new();
            scan(rel, snap.snapshot, |values, nulls, _| {
                rows.push(self.row(values, nulls))
            });
            let latest = snap.latest;
            drop(snap);
            pg_sys::table_close(rel, pg_sys::NoLock as _);
            rows.sort_by_key(|r| std::cmp::Reverse(r.id));
            (rows, latest)
        }
    }
}

thread_local! {
    /// Set while a key function writes the table: the guard trigger lets
    /// those writes through (docs/facade.md#who-may-call-what).
    static WRITING: Cell<bool> = const { Cell::new(false) };
}

/// Whether a key function is writing the table now.
pub fn writing() -> bool {
    WRITING.get()
}

/// Forgets a write an ERROR interrupted (at the transaction's end).
pub fn reset_writing() {
    WRITING.set(false);
}

/// The new values of a row, by column.
pub struct NewRow<'a> {
    pub id: i32,
    pub state: State,
    pub key: Option<&'a [u8; KEY_LEN]>,
    pub fingerprint: &'a str,
}

/// One write: the executor's state for one row of the table, opened and
/// closed around `f` (as logical replication's apply does), with the
/// guard's flag set. Every other backend's key cache is dropped when the
/// transaction commits, this one's at once.
unsafe fn write<R>(
    table: &Table,
    f: impl FnOnce(pg_sys::Relation, *mut pg_sys::EState, *mut pg_sys::ResultRelInfo) -> R,
) -> R {
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            WRITING.set(false);
        }
    }
    // SAFETY (the caller's): the table is locked against other key changes.
    unsafe {
        let rel = pg_sys::table_open(table.oid, pg_sys::RowExclusiveLock as _);
        let estate = pg_sys::CreateExecutorState();
        (*estate).es_output_cid = pg_sys::GetCurrentCommandId(true);
        let snap = Snap::take();
        (*estate).es_snapshot = snap.snapshot;
        // A range table of this one relation, as logical replication's apply
        // builds it: what the executor's row path may look up (the updated
        // columns, a recheck) is there.
        let rte =
            PgBox::<pg_sys::RangeTblEntry>::alloc_node(pg_sys::NodeTag::T_RangeTblEntry).into_pg();
        (*rte).rtekind = pg_sys::RTEKind::RTE_RELATION;
        (*rte).relid = table.oid;
        (*rte).relkind = pg_sys::RELKIND_RELATION as std::ffi::c_char;
        (*rte).rellockmode = pg_sys::RowExclusiveLock as _;
        let range = pg_sys::lappend(ptr::null_mut(), rte.cast());
        #[cfg(feature = "pg15")]
        pg_sys::ExecInitRangeTable(estate, range);
        #[cfg(not(feature = "pg15"))]
        let mut permissions = ptr::null_mut();
        #[cfg(not(feature = "pg15"))]
        pg_sys::addRTEPermissionInfo(&mut permissions, rte);
        #[cfg(any(feature = "pg16", feature = "pg17"))]
        pg_sys::ExecInitRangeTable(estate, range, permissions);
        #[cfg(any(feature = "pg18", feature = "pg19"))]
        pg_sys::ExecInitRangeTable(estate, range, permissions, pg_sys::bms_make_singleton(1));
        let info =
            PgBox::<pg_sys::ResultRelInfo>::alloc_node(pg_sys::NodeTag::T_ResultRelInfo).into_pg();
        pg_sys::InitResultRelInfo(info, rel, 1, ptr::null_mut(), 0);
        pg_sys::ExecOpenIndices(info, false);
        pg_sys::AfterTriggerBeginQuery();
        WRITING.set(true);
        let flag = Flag;
        let out = f(rel, estate, info);
        drop(flag);
        pg_sys::AfterTriggerEndQuery(estate);
        pg_sys::ExecCloseIndices(info);
        pg_sys::ExecCloseRangeTableRelations(estate);
        pg_sys::ExecResetTupleTable((*estate).es_tupleTable, false);
        pg_sys::FreeExecutorState(estate);
        drop(snap);
        pg_sys::table_close(rel, pg_sys::NoLock as _);
        pg_sys::CacheInvalidateRelcacheByRelid(table.oid);
        pg_sys::CommandCounterIncrement();
        out
    }
}

/// A datum of type text holding `s` (palloc'd).
unsafe fn text_datum(s: &CStr) -> pg_sys::Datum {
    // SAFETY: copies a C string into a new text.
    unsafe { pg_sys::Datum::from(pg_sys::cstring_to_text(s.as_ptr())) }
}

impl Table {
    /// Adds a row.
    pub fn insert(&self, row: NewRow) {
        let c = self.columns;
        let fingerprint = std::ffi::CString::new(row.fingerprint).expect("hex has no NUL");
        // SAFETY: one row of this table's columns into a virtual slot, then
        // the executor's insert (constraints, indexes, row triggers).
        unsafe {
            write(self, |rel, estate, info| {
                let slot =
                    pg_sys::ExecInitExtraTupleSlot(estate, (*rel).rd_att, &pg_sys::TTSOpsVirtual);
                pg_sys::ExecClearTuple(slot);
                let n = (*(*rel).rd_att).natts as usize;
                let values = std::slice::from_raw_parts_mut((*slot).tts_values, n);
                let nulls = std::slice::from_raw_parts_mut((*slot).tts_isnull, n);
                nulls.fill(true);
                let mut put = |i: usize, d: pg_sys::Datum| {
                    values[i] = d;
                    nulls[i] = false;
                };
                put(c.key_id, pg_sys::Datum::from(row.id));
                put(c.state, text_datum(row.state.name()));
                let header = match self.key_type {
                    KeyType::Secret => 0,
                    KeyType::Bytea => pg_sys::VARHDRSZ,
                };
                let copy = row.key.map(|k| {
                    let p = pg_sys::palloc(header + KEY_LEN).cast::<u8>();
                    if header > 0 {
                        pgrx::set_varsize_4b(p.cast(), (header + KEY_LEN) as i32);
                    }
                    ptr::copy_nonoverlapping(k.as_ptr(), p.add(header), KEY_LEN);
                    p
                });
                if let Some(p) = copy {
                    put(c.key, pg_sys::Datum::from(p));
                }
                put(c.fingerprint, text_datum(&fingerprint));
                put(
                    c.created,
                    pg_sys::Datum::from(pg_sys::GetCurrentTransactionStartTimestamp()),
                );
                pg_sys::ExecStoreVirtualTuple(slot);
                pg_sys::ExecSimpleRelationInsert(info, estate, slot);
                if let Some(p) = copy {
                    // The table has its own copy now; wipe ours.
                    ptr::write_bytes(p.add(header), 0, KEY_LEN);
                }
            })
        }
    }

    /// Changes every row `pick` chooses: `change` gets its state and says
    /// what the row becomes (its new state; `dropped` also wipes the key
    /// and dates the drop). A retired or dropped row keeps the first date
    /// it left `current` on.
    pub fn update(&self, pick: impl Fn(i32, State) -> bool, to: State) {
        let c = self.columns;
        // SAFETY: under the table's lock, each chosen row is found with the
        // latest snapshot, and replaced through the executor's update
        // (constraints, indexes, row triggers).
        unsafe {
            write(self, |rel, estate, info| {
                let desc = (*rel).rd_att;
                let epq = pg_sys::palloc0(std::mem::size_of::<pg_sys::EPQState>())
                    .cast::<pg_sys::EPQState>();
                #[cfg(feature = "pg15")]
                pg_sys::EvalPlanQualInit(epq, estate, ptr::null_mut(), ptr::null_mut(), -1);
                #[cfg(not(feature = "pg15"))]
                pg_sys::EvalPlanQualInit(
                    epq,
                    estate,
                    ptr::null_mut(),
                    ptr::null_mut(),
                    -1,
                    ptr::null_mut(),
                );
                let now = pg_sys::Datum::from(pg_sys::GetCurrentTransactionStartTimestamp());
                let mut chosen = Vec::new();
                scan(rel, (*estate).es_snapshot, |values, nulls, tuple| {
                    let row = self.row(values, nulls);
                    if pick(row.id, row.state) {
                        chosen.push(pg_sys::heap_copytuple(tuple));
                    }
                });
                for tuple in chosen {
                    let old =
                        pg_sys::ExecInitExtraTupleSlot(estate, desc, &pg_sys::TTSOpsHeapTuple);
                    pg_sys::ExecStoreHeapTuple(tuple, old, false);
                    pg_sys::slot_getallattrs(old);
                    let new = pg_sys::ExecInitExtraTupleSlot(estate, desc, &pg_sys::TTSOpsVirtual);
                    pg_sys::ExecClearTuple(new);
                    let n = (*desc).natts as usize;
                    let values = std::slice::from_raw_parts_mut((*new).tts_values, n);
                    let nulls = std::slice::from_raw_parts_mut((*new).tts_isnull, n);
                    values.copy_from_slice(std::slice::from_raw_parts((*old).tts_values, n));
                    nulls.copy_from_slice(std::slice::from_raw_parts((*old).tts_isnull, n));
                    values[c.state] = text_datum(to.name());
                    if nulls[c.retired] {
                        values[c.retired] = now;
                        nulls[c.retired] = false;
                    }
                    if to == State::Dropped {
                        nulls[c.key] = true;
                        values[c.dropped] = now;
                        nulls[c.dropped] = false;
                    }
                    pg_sys::ExecStoreVirtualTuple(new);
                    pg_sys::ExecSimpleRelationUpdate(info, estate, epq, old, new);
                }
                pg_sys::EvalPlanQualEnd(epq);
            })
        }
    }
}
