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
pub use uuid_ext_core::keyset::{Row, State};
use zeroize::Zeroizing;

use super::error;

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

/// Reads extension `extension`'s row of `pg_extension` (by OID: the
/// catalog function that does this is not exported before PostgreSQL 16)
/// with `f`, given the tuple and the catalog's descriptor; None without it.
pub fn extension_row<R>(
    extension: pg_sys::Oid,
    f: impl FnOnce(pg_sys::HeapTuple, pg_sys::TupleDesc) -> R,
) -> Option<R> {
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
        let row = (!tuple.is_null()).then(|| f(tuple, (*rel).rd_att));
        pg_sys::systable_endscan(scan);
        pg_sys::table_close(rel, pg_sys::AccessShareLock as _);
        row
    }
}

/// The installed extension: its OID and its schema.
pub struct Extension {
    pub oid: pg_sys::Oid,
    pub schema: pg_sys::Oid,
}

/// The installed extension of this database (55000 when there is none).
pub fn extension() -> Extension {
    // SAFETY: a catalog lookup by name.
    let oid = unsafe { pg_sys::get_extension_oid(c"uuid_ext".as_ptr(), true) };
    if oid == pg_sys::InvalidOid {
        error::facade_table_missing();
    }
    Extension {
        oid,
        // SAFETY: the fixed part of a pg_extension tuple.
        schema: extension_row(oid, |tuple, _| unsafe {
            (*pg_sys::heap_tuple_get_struct::<pg_sys::FormData_pg_extension>(tuple)).extnamespace
        })
        .unwrap_or(pg_sys::InvalidOid),
    }
}

/// The table named `name` in the extension's schema that is a member of
/// the extension (the only relation of that name there: a schema holds
/// one), or None.
pub fn member(extension: &Extension, name: &CStr) -> Option<pg_sys::Oid> {
    // SAFETY: catalog lookups by OID and by name within one schema.
    unsafe {
        let oid = pg_sys::get_relname_relid(name.as_ptr(), extension.schema);
        (oid != pg_sys::InvalidOid
            && pg_sys::get_rel_relkind(oid) == pg_sys::RELKIND_RELATION as std::ffi::c_char
            && pg_sys::getExtensionOfObject(pg_sys::RelationRelationId, oid) == extension.oid)
            .then_some(oid)
    }
}

/// The position of column `name` of table `oid` (an error when missing).
pub fn column(oid: pg_sys::Oid, name: &CStr) -> usize {
    column_if_any(oid, name).unwrap_or_else(|| {
        error::facade_table_unreadable(&format!(
            "a table of the facade has no column {}",
            name.to_string_lossy()
        ))
    })
}

/// The position of column `name` of table `oid`, if it has one.
pub fn column_if_any(oid: pg_sys::Oid, name: &CStr) -> Option<usize> {
    // SAFETY: a catalog lookup by OID and name.
    let n = unsafe { pg_sys::get_attnum(oid, name.as_ptr()) };
    (n > 0).then(|| n as usize - 1)
}

/// The installed extension's key table, `uuid_facade_key`.
pub fn table() -> Table {
    let extension = extension();
    let oid =
        member(&extension, c"uuid_facade_key").unwrap_or_else(|| error::facade_table_missing());
    let column = |name| column(oid, name);
    // SAFETY: catalog lookups by OID.
    unsafe {
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
                None
            } else {
                let text = pg_sys::text_to_cstring(values[c.state].cast_mut_ptr());
                let state = State::parse(CStr::from_ptr(text).to_bytes());
                pg_sys::pfree(text.cast());
                state
            }
            .unwrap_or_else(|| {
                error::facade_table_unreadable(&format!(
                    "facade key {id} has a state uuid_ext does not know"
                ))
            });
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
            let text = |i: usize| {
                if nulls[i] {
                    String::new()
                } else {
                    let t = pg_sys::text_to_cstring(values[i].cast_mut_ptr());
                    let s = CStr::from_ptr(t).to_string_lossy().into_owned();
                    pg_sys::pfree(t.cast());
                    s
                }
            };
            let time = |i: usize| (!nulls[i]).then(|| values[i].value() as i64);
            Row {
                id,
                state,
                key,
                fingerprint: text(c.fingerprint),
                created: time(c.created).unwrap_or(0),
                retired: time(c.retired),
                dropped: time(c.dropped),
            }
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

/// Calls `f` with each row of table `oid` (values and nulls, valid only
/// during the call) as the latest snapshot shows them.
pub fn read(oid: pg_sys::Oid, mut f: impl FnMut(&[pg_sys::Datum], &[bool])) {
    // SAFETY: the table is opened, scanned and closed here; the lock is
    // kept until the transaction ends, as a query's would be.
    unsafe {
        let rel = pg_sys::table_open(oid, pg_sys::AccessShareLock as _);
        let snap = Snap::take();
        scan(rel, snap.snapshot, |values, nulls, _| f(values, nulls));
        drop(snap);
        pg_sys::table_close(rel, pg_sys::NoLock as _);
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

/// The executor's state for writing one table (as logical replication's
/// apply builds it), with the guard's flag set while it lives.
pub struct Writer {
    rel: pg_sys::Relation,
    estate: *mut pg_sys::EState,
    info: *mut pg_sys::ResultRelInfo,
    epq: *mut pg_sys::EPQState,
}

impl Writer {
    fn natts(&self) -> usize {
        // SAFETY: the relation is open.
        unsafe { (*(*self.rel).rd_att).natts as usize }
    }

    /// Adds a row of `values` (column position, value or NULL; columns not
    /// named are NULL).
    pub fn insert(&mut self, values: &[(usize, Option<pg_sys::Datum>)]) {
        // SAFETY: one row of the table's columns in a virtual slot, then the
        // executor's insert (constraints, indexes, row triggers).
        unsafe {
            let slot = pg_sys::ExecInitExtraTupleSlot(
                self.estate,
                (*self.rel).rd_att,
                &pg_sys::TTSOpsVirtual,
            );
            pg_sys::ExecClearTuple(slot);
            let n = self.natts();
            let datums = std::slice::from_raw_parts_mut((*slot).tts_values, n);
            let nulls = std::slice::from_raw_parts_mut((*slot).tts_isnull, n);
            nulls.fill(true);
            for &(i, v) in values {
                if let Some(d) = v {
                    datums[i] = d;
                    nulls[i] = false;
                }
            }
            pg_sys::ExecStoreVirtualTuple(slot);
            pg_sys::ExecSimpleRelationInsert(self.info, self.estate, slot);
        }
    }

    /// Changes every row `pick` chooses, as the latest snapshot shows them
    /// (under the table's lock): `change` rewrites its values and nulls.
    pub fn update(
        &mut self,
        mut pick: impl FnMut(&[pg_sys::Datum], &[bool]) -> bool,
        mut change: impl FnMut(&mut [pg_sys::Datum], &mut [bool]),
    ) {
        // SAFETY: each chosen row is copied out of the scan, then replaced
        // through the executor's update (constraints, indexes, row triggers).
        unsafe {
            let desc = (*self.rel).rd_att;
            let mut chosen = Vec::new();
            scan(
                self.rel,
                (*self.estate).es_snapshot,
                |values, nulls, tuple| {
                    if pick(values, nulls) {
                        chosen.push(pg_sys::heap_copytuple(tuple));
                    }
                },
            );
            let n = self.natts();
            for tuple in chosen {
                let old =
                    pg_sys::ExecInitExtraTupleSlot(self.estate, desc, &pg_sys::TTSOpsHeapTuple);
                pg_sys::ExecStoreHeapTuple(tuple, old, false);
                pg_sys::slot_getallattrs(old);
                let new = pg_sys::ExecInitExtraTupleSlot(self.estate, desc, &pg_sys::TTSOpsVirtual);
                pg_sys::ExecClearTuple(new);
                let values = std::slice::from_raw_parts_mut((*new).tts_values, n);
                let nulls = std::slice::from_raw_parts_mut((*new).tts_isnull, n);
                values.copy_from_slice(std::slice::from_raw_parts((*old).tts_values, n));
                nulls.copy_from_slice(std::slice::from_raw_parts((*old).tts_isnull, n));
                change(values, nulls);
                pg_sys::ExecStoreVirtualTuple(new);
                pg_sys::ExecSimpleRelationUpdate(self.info, self.estate, self.epq, old, new);
                wipe(tuple);
            }
        }
    }

    /// Removes every row `pick` chooses, as the latest snapshot shows them
    /// (under the table's lock).
    pub fn delete(&mut self, mut pick: impl FnMut(&[pg_sys::Datum], &[bool]) -> bool) {
        // SAFETY: each chosen row is copied out of the scan, then removed
        // through the executor's delete (row triggers).
        unsafe {
            let desc = (*self.rel).rd_att;
            let mut chosen = Vec::new();
            scan(
                self.rel,
                (*self.estate).es_snapshot,
                |values, nulls, tuple| {
                    if pick(values, nulls) {
                        chosen.push(pg_sys::heap_copytuple(tuple));
                    }
                },
            );
            for tuple in chosen {
                let old =
                    pg_sys::ExecInitExtraTupleSlot(self.estate, desc, &pg_sys::TTSOpsHeapTuple);
                pg_sys::ExecStoreHeapTuple(tuple, old, false);
                pg_sys::ExecSimpleRelationDelete(self.info, self.estate, self.epq, old);
                wipe(tuple);
            }
        }
    }
}

/// Zeroes a row copied out of the table (it may hold a key) before its
/// memory is freed.
unsafe fn wipe(tuple: pg_sys::HeapTuple) {
    // SAFETY (the caller's): a palloc'd copy no slot reads any more.
    unsafe { ptr::write_bytes((*tuple).t_data.cast::<u8>(), 0, (*tuple).t_len as usize) }
}

/// One write of table `oid` (locked by the caller against other changes
/// of it): `f` gets the executor's state, opened and closed around it, with
/// the guard's flag set. Every other backend's key cache is dropped when
/// the transaction commits, this one's at once.
pub fn write<R>(oid: pg_sys::Oid, f: impl FnOnce(&mut Writer) -> R) -> R {
    struct Flag;
    impl Drop for Flag {
        fn drop(&mut self) {
            WRITING.set(false);
        }
    }
    // SAFETY: the executor's state for one relation, set up and torn down
    // as logical replication's apply does; an ERROR leaves it to the
    // transaction's cleanup.
    unsafe {
        let rel = pg_sys::table_open(oid, pg_sys::RowExclusiveLock as _);
        let estate = pg_sys::CreateExecutorState();
        (*estate).es_output_cid = pg_sys::GetCurrentCommandId(true);
        let snap = Snap::take();
        (*estate).es_snapshot = snap.snapshot;
        // A range table of this one relation: what the executor's row path
        // may look up (the updated columns, a recheck) is there.
        let rte =
            PgBox::<pg_sys::RangeTblEntry>::alloc_node(pg_sys::NodeTag::T_RangeTblEntry).into_pg();
        (*rte).rtekind = pg_sys::RTEKind::RTE_RELATION;
        (*rte).relid = oid;
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
        let epq =
            pg_sys::palloc0(std::mem::size_of::<pg_sys::EPQState>()).cast::<pg_sys::EPQState>();
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
        pg_sys::AfterTriggerBeginQuery();
        WRITING.set(true);
        let flag = Flag;
        let out = f(&mut Writer {
            rel,
            estate,
            info,
            epq,
        });
        drop(flag);
        pg_sys::AfterTriggerEndQuery(estate);
        pg_sys::EvalPlanQualEnd(epq);
        pg_sys::ExecCloseIndices(info);
        pg_sys::ExecCloseRangeTableRelations(estate);
        pg_sys::ExecResetTupleTable((*estate).es_tupleTable, false);
        pg_sys::FreeExecutorState(estate);
        drop(snap);
        pg_sys::table_close(rel, pg_sys::NoLock as _);
        pg_sys::CacheInvalidateRelcacheByRelid(oid);
        pg_sys::CommandCounterIncrement();
        out
    }
}

/// A datum of type text holding `s` (palloc'd).
pub fn text_datum(s: &CStr) -> pg_sys::Datum {
    // SAFETY: copies a C string into a new text.
    unsafe { pg_sys::Datum::from(pg_sys::cstring_to_text(s.as_ptr())) }
}

/// A datum of type text holding a state's name (palloc'd).
fn state_datum(state: State) -> pg_sys::Datum {
    let name = state.name();
    // SAFETY: copies the name's bytes into a new text.
    unsafe {
        pg_sys::Datum::from(pg_sys::cstring_to_text_with_len(
            name.as_ptr().cast(),
            name.len() as i32,
        ))
    }
}

/// A palloc'd copy of a key, as a datum of `uuid_facade_secret` (or, for
/// 0.8.0's column, `bytea`); wiped by [`wipe`] once the table has its own.
pub struct KeyDatum {
    ptr: *mut u8,
    header: usize,
}

impl KeyDatum {
    fn new(key: &[u8; KEY_LEN], key_type: KeyType) -> KeyDatum {
        let header = match key_type {
            KeyType::Secret => 0,
            KeyType::Bytea => pg_sys::VARHDRSZ,
        };
        // SAFETY: a new palloc'd value of the column's type.
        unsafe {
            let ptr = pg_sys::palloc(header + KEY_LEN).cast::<u8>();
            if header > 0 {
                pgrx::set_varsize_4b(ptr.cast(), (header + KEY_LEN) as i32);
            }
            ptr::copy_nonoverlapping(key.as_ptr(), ptr.add(header), KEY_LEN);
            KeyDatum { ptr, header }
        }
    }

    pub fn secret(key: &[u8; KEY_LEN]) -> KeyDatum {
        KeyDatum::new(key, KeyType::Secret)
    }

    pub fn datum(&self) -> pg_sys::Datum {
        pg_sys::Datum::from(self.ptr)
    }
}

impl Drop for KeyDatum {
    fn drop(&mut self) {
        // SAFETY: the palloc'd copy made in new(), still allocated (its
        // memory context outlives the write).
        unsafe { ptr::write_bytes(self.ptr.add(self.header), 0, KEY_LEN) }
    }
}

impl Table {
    fn key_datum(&self, key: &[u8; KEY_LEN]) -> KeyDatum {
        KeyDatum::new(key, self.key_type)
    }

    /// Adds a row, made now.
    pub fn insert(&self, row: NewRow) {
        let c = self.columns;
        let fingerprint = std::ffi::CString::new(row.fingerprint).expect("hex has no NUL");
        let key = row.key.map(|k| self.key_datum(k));
        // SAFETY: reads the transaction's start time.
        let now = unsafe { pg_sys::GetCurrentTransactionStartTimestamp() };
        write(self.oid, |w| {
            w.insert(&[
                (c.key_id, Some(pg_sys::Datum::from(row.id))),
                (c.state, Some(state_datum(row.state))),
                (c.key, key.as_ref().map(KeyDatum::datum)),
                (c.fingerprint, Some(text_datum(&fingerprint))),
                (c.created, Some(pg_sys::Datum::from(now))),
            ])
        });
    }

    /// Changes every row `pick` chooses to the state `to` (`dropped` also
    /// wipes the key and dates the drop). A retired or dropped row keeps
    /// the first date it left `current` on.
    pub fn update(&self, pick: impl Fn(i32, State) -> bool, to: State) {
        let c = self.columns;
        // SAFETY: reads the transaction's start time.
        let now = pg_sys::Datum::from(unsafe { pg_sys::GetCurrentTransactionStartTimestamp() });
        write(self.oid, |w| {
            w.update(
                // SAFETY: values of this table's rows.
                |values, nulls| {
                    let row = unsafe { self.row(values, nulls) };
                    pick(row.id, row.state)
                },
                |values, nulls| {
                    values[c.state] = state_datum(to);
                    if nulls[c.retired] {
                        values[c.retired] = now;
                        nulls[c.retired] = false;
                    }
                    if to == State::Dropped {
                        nulls[c.key] = true;
                        values[c.dropped] = now;
                        nulls[c.dropped] = false;
                    }
                },
            )
        });
    }

    /// Makes the table hold exactly `rows` (each replaces the row of its
    /// id, or is added; a row of another id goes): another node's keys.
    /// The rows that are not current go first, so that the one current key
    /// is never two.
    pub fn replace(&self, rows: &[Row]) {
        let c = self.columns;
        let mut ordered: Vec<&Row> = rows.iter().collect();
        ordered.sort_by_key(|r| (r.state == State::Current, r.id));
        write(self.oid, |w| {
            w.delete(|v, n| {
                n[c.key_id] || !rows.iter().any(|r| r.id == v[c.key_id].value() as i32)
            });
            for row in ordered {
                let fingerprint = std::ffi::CString::new(row.fingerprint.as_str())
                    .unwrap_or_else(|_| error::facade_table_unreadable("a fingerprint with a NUL"));
                let key = row.key.as_ref().map(|k| self.key_datum(k));
                let time = |t: Option<i64>| t.map(pg_sys::Datum::from);
                let values = [
                    (c.key_id, Some(pg_sys::Datum::from(row.id))),
                    (c.state, Some(state_datum(row.state))),
                    (c.key, key.as_ref().map(KeyDatum::datum)),
                    (c.fingerprint, Some(text_datum(&fingerprint))),
                    (c.created, time(Some(row.created))),
                    (c.retired, time(row.retired)),
                    (c.dropped, time(row.dropped)),
                ];
                let mut found = false;
                w.update(
                    |v, n| !n[c.key_id] && v[c.key_id].value() as i32 == row.id,
                    |v, n| {
                        found = true;
                        for &(i, d) in &values {
                            n[i] = d.is_none();
                            v[i] = d.unwrap_or(pg_sys::Datum::from(0));
                        }
                    },
                );
                if !found {
                    w.insert(&values);
                }
            }
        });
    }
}
