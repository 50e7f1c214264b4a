//! `#[pg_test]`s: run inside a backend of a cluster that preloads the
//! library (see `pg_test::postgresql_conf_options` in lib.rs), each test in
//! a connection of its own.

#[pgrx::pg_schema]
mod tests {
    use pgrx::datum::{TimestampWithTimeZone, Uuid};
    use pgrx::prelude::*;
    use pgrx::{PgSqlErrorCode, PgTryBuilder};
    use uuid_ext_core::{layout, timestamp, v6, v7};

    use crate::generate;
    use crate::sequencer::draw;

    /// The SQLSTATE `f` fails with, or `None` when it succeeds.
    fn sqlstate_of(f: impl FnOnce() + std::panic::UnwindSafe) -> Option<PgSqlErrorCode> {
        PgTryBuilder::new(move || {
            f();
            None
        })
        .catch_others(|e| match e {
            pg_sys::panic::CaughtError::PostgresError(r)
            | pg_sys::panic::CaughtError::ErrorReport(r)
            | pg_sys::panic::CaughtError::RustPanic { ereport: r, .. } => Some(r.sql_error_code()),
        })
        .execute()
    }

    /// `name` qualified with the extension's schema: on PostgreSQL 17 and
    /// later an unqualified `uuid_extract_timestamp` reaches core's.
    fn ours(name: &str) -> String {
        let schema = Spi::get_one::<String>(
            "SELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'uuid_ext'",
        )
        .unwrap()
        .unwrap();
        format!("{schema}.{name}")
    }

    fn gen() -> Uuid {
        Spi::get_one::<Uuid>("SELECT uuid_generate_v7()")
            .unwrap()
            .unwrap()
    }

    #[pg_test]
    fn v7_strictly_increasing_in_one_backend() {
        let ids: Vec<Uuid> = Spi::connect(|c| {
            c.select(
                "SELECT uuid_generate_v7() FROM generate_series(1, 100000)",
                None,
                &[],
            )
            .unwrap()
            .map(|row| row.get::<Uuid>(1).unwrap().unwrap())
            .collect()
        });
        assert_eq!(ids.len(), 100_000);
        assert!(ids.windows(2).all(|w| w[0].as_bytes() < w[1].as_bytes()));
        assert!(ids.iter().all(|u| layout::version(u.as_bytes()) == Some(7)));
    }

    #[pg_test]
    fn v7_time_is_the_clock() {
        // This backend's own word: another test runs the shared one ahead.
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        let before = Spi::get_one::<TimestampWithTimeZone>(
            "SELECT date_trunc('milliseconds', clock_timestamp())",
        )
        .unwrap()
        .unwrap();
        let id = gen();
        let after = Spi::get_one::<TimestampWithTimeZone>("SELECT clock_timestamp()")
            .unwrap()
            .unwrap();
        let at = Spi::get_one_with_args::<TimestampWithTimeZone>(
            &format!("SELECT {}($1)", ours("uuid_extract_timestamp")),
            &[id.into()],
        )
        .unwrap()
        .unwrap();
        assert!(i64::from(before) <= i64::from(at) && i64::from(at) <= i64::from(after));
    }

    /// The random generator was seeded in `_PG_init` in the postmaster; this
    /// backend inherited that state and re-seeds at its first draw (docs/design.md#randomness).
    #[pg_test]
    fn random_generator_reseeds_in_each_backend() {
        // SAFETY: both are plain ints PostgreSQL sets at process start.
        let (me, postmaster) = unsafe { (pg_sys::MyProcPid, pg_sys::PostmasterPid) };
        assert_ne!(me, postmaster);
        assert_eq!(
            generate::rng_seeded_for(),
            Some(postmaster),
            "seeded in the postmaster by _PG_init"
        );
        gen();
        assert_eq!(
            generate::rng_seeded_for(),
            Some(me),
            "re-seeded for this backend"
        );
    }

    /// A shift moves the embedded time, never the sequencer (docs/reference.md#generating).
    #[pg_test]
    fn shift_never_moves_the_sequencer() {
        let far = Spi::get_one::<Uuid>("SELECT uuid_generate_v7(interval '1000 years')")
            .unwrap()
            .unwrap();
        let next = gen();
        let far_ms = timestamp::v7_unix_ms(far.as_bytes());
        let next_ms = timestamp::v7_unix_ms(next.as_bytes());
        assert!(far_ms > next_ms + 999 * 365 * 86_400_000);
        let now_ms =
            Spi::get_one::<f64>("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8")
                .unwrap()
                .unwrap() as u64;
        assert!(
            next_ms <= now_ms && now_ms - next_ms < 60_000,
            "the next UUID carries today's time"
        );
    }

    /// A shifted call takes exactly one step of the sequence, like an unshifted
    /// one, and moves only its own value (docs/design.md#the-sequencer-word). On this backend's own word,
    /// set a day ahead of the clock so every call takes the `last + 1` path.
    #[pg_test]
    fn shift_takes_one_step_and_never_writes_back() {
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        let day = 86_400_000 * v7::WORD_UNITS_PER_MS;
        let start = v7::word(gen().as_bytes()) + day;
        draw::set_local_v7_for_test(start);
        let w = |u: Uuid| v7::word(u.as_bytes());
        assert_eq!(w(gen()), start + 1);
        let shifted = Spi::get_one::<Uuid>("SELECT uuid_generate_v7(interval '-1 hour')")
            .unwrap()
            .unwrap();
        assert_eq!(w(shifted), start + 2 - 3_600_000 * v7::WORD_UNITS_PER_MS);
        assert_eq!(w(gen()), start + 3);
        // The timestamp-taking functions do not touch the word at all.
        Spi::run(
            "SELECT uuid_v7_upper_bound('10000-01-01'), uuid_timestamptz_to_v7('10000-01-01')",
        )
        .unwrap();
        assert_eq!(w(gen()), start + 4);
    }

    /// A whole-millisecond shift keeps the fraction and counter of the step.
    #[pg_test]
    fn shift_keeps_fraction_and_counter() {
        let a = Spi::get_one::<Uuid>("SELECT uuid_generate_v7(interval '1 hour')")
            .unwrap()
            .unwrap();
        let b = gen();
        let (wa, wb) = (v7::word(a.as_bytes()), v7::word(b.as_bytes()));
        let hour = 3_600_000u64 << 16;
        // `a` is one step before `b` in the sequence, moved an hour ahead.
        assert!(wa > wb && wa - hour < wb, "a = {wa:x}, b = {wb:x}");
    }

    #[pg_test]
    fn preloaded_session_uses_the_shared_word() {
        let info = Spi::get_one::<pgrx::datum::JsonB>("SELECT uuid_ext_info()")
            .unwrap()
            .unwrap()
            .0;
        assert_eq!(info["preloaded"], true);
        assert_eq!(info["sequencer"], "shared");
        assert_eq!(info["version"], env!("CARGO_PKG_VERSION"));
        assert!(std::ptr::eq(draw::v7_word().0, draw::v7_word().0));
        let shared = draw::v7_word().0 as *const _;
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        assert!(
            !std::ptr::eq(draw::v7_word().0, shared),
            "backend mode uses the process-local word"
        );
        let info = Spi::get_one::<pgrx::datum::JsonB>("SELECT uuid_ext_info()")
            .unwrap()
            .unwrap()
            .0;
        assert_eq!(info["sequencer"], "backend");
    }

    /// Switching modes never goes below the session's own last value (docs/reference.md#configuration),
    /// even when the word switched to is behind it.
    #[pg_test]
    fn switching_modes_never_goes_backwards() {
        // Run this backend's own word 5 ms ahead of the shared one (small:
        // the other tests share that word, and it follows this session).
        Spi::run("SET uuid_ext.monotonicity = 'shared'").unwrap();
        let shared_now = v7::word(gen().as_bytes());
        draw::set_local_v7_for_test(shared_now + 5 * v7::WORD_UNITS_PER_MS);
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        let on_local = gen();
        assert!(v7::word(on_local.as_bytes()) > shared_now + 5 * v7::WORD_UNITS_PER_MS);
        Spi::run("SET uuid_ext.monotonicity = 'shared'").unwrap();
        let on_shared = gen();
        assert!(
            on_shared.as_bytes() > on_local.as_bytes(),
            "switching to shared went backwards"
        );
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        assert!(
            gen().as_bytes() > on_shared.as_bytes(),
            "switching back went backwards"
        );
    }

    #[pg_test]
    fn exhausted_sequencer_is_22008_never_a_wrap() {
        // Run with the process-local word: the shared one serves the other tests.
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        draw::set_local_v7_for_test(v7::MAX_WORD);
        assert_eq!(
            sqlstate_of(|| {
                gen();
            }),
            Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW)
        );
        // One step below the end, the last UUID is made, then 22008 again.
        draw::set_local_v7_for_test(v7::MAX_WORD - 1);
        let last = gen();
        assert_eq!(
            u128::from_be_bytes(*last.as_bytes()) >> 58,
            u128::from_be_bytes(v7::from_word(v7::MAX_WORD, 0)) >> 58
        );
        assert_eq!(
            sqlstate_of(|| {
                gen();
            }),
            Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW)
        );
    }

    fn gen6() -> Uuid {
        Spi::get_one::<Uuid>("SELECT uuid_generate_v6()")
            .unwrap()
            .unwrap()
    }

    #[pg_test]
    fn v6_exhausted_sequencer_is_22008_never_a_wrap() {
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        draw::set_local_v6_for_test(v6::MAX_WORD);
        assert_eq!(
            sqlstate_of(|| {
                gen6();
            }),
            Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW)
        );
        draw::set_local_v6_for_test(v6::MAX_WORD - 1);
        assert_eq!(v6::word(gen6().as_bytes()), v6::MAX_WORD);
        assert_eq!(
            sqlstate_of(|| {
                gen6();
            }),
            Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW)
        );
    }

    /// UUIDv6 has a word of its own, shared when preloaded, local in backend mode.
    #[pg_test]
    fn v6_has_its_own_word() {
        let shared = draw::v6_word().0 as *const _;
        assert!(!std::ptr::eq(shared, draw::v7_word().0));
        let a = v6::word(gen6().as_bytes());
        let b = v6::word(gen6().as_bytes());
        assert!(a < b);
        assert_eq!(
            draw::v6_word().0.load(std::sync::atomic::Ordering::Relaxed),
            b
        );
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        assert!(!std::ptr::eq(draw::v6_word().0, shared));
        // The session never goes below its own last value on the other word.
        assert!(v6::word(gen6().as_bytes()) > b);
    }

    #[pg_test]
    fn v6_time_is_the_clock() {
        Spi::run("SET uuid_ext.monotonicity = 'backend'").unwrap();
        let before = Spi::get_one::<TimestampWithTimeZone>("SELECT clock_timestamp()")
            .unwrap()
            .unwrap();
        let id = gen6();
        let after = Spi::get_one::<TimestampWithTimeZone>("SELECT clock_timestamp()")
            .unwrap()
            .unwrap();
        let at = Spi::get_one_with_args::<TimestampWithTimeZone>(
            &format!("SELECT {}($1)", ours("uuid_extract_timestamp")),
            &[id.into()],
        )
        .unwrap()
        .unwrap();
        assert!(i64::from(before) <= i64::from(at) && i64::from(at) <= i64::from(after));
    }

    #[pg_test]
    fn errors_carry_their_sqlstate() {
        let overflow = Some(PgSqlErrorCode::ERRCODE_DATETIME_FIELD_OVERFLOW);
        for q in [
            "SELECT uuid_v7_lower_bound('infinity')",
            "SELECT uuid_v7_upper_bound('1969-12-31 23:59:59.999 UTC')",
            "SELECT uuid_timestamptz_to_v7('-infinity')",
            "SELECT uuid_timestamp_to_v7('10889-08-02 05:31:50.656')",
            "SELECT uuid_generate_v7(interval '-60 years')",
            "SELECT uuid_generate_v7(interval '100000 years')",
            "SELECT uuid_v6_lower_bound('1582-10-14 UTC')",
            "SELECT uuid_v6_upper_bound('infinity')",
        ] {
            assert_eq!(sqlstate_of(|| Spi::run(q).unwrap()), overflow, "{q}");
        }
        assert_eq!(
            sqlstate_of(|| Spi::run("SELECT uuid_v7_lower_bound('1970-01-01 UTC')").unwrap()),
            None
        );
        let parameter = Some(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE);
        let text = Some(PgSqlErrorCode::ERRCODE_INVALID_TEXT_REPRESENTATION);
        for (q, code) in [
            ("SELECT uuid_generate_v8('\\x0001')", parameter),
            (
                "SELECT uuid_generate_v8_name(gen_random_uuid(), 'x', 'md5')",
                parameter,
            ),
            ("SELECT uuid_namespace('nis')", parameter),
            ("SELECT uuid_encode(gen_random_uuid(), 'base36')", parameter),
            ("SELECT uuid_v1_to_v6(gen_random_uuid())", parameter),
            ("SELECT uuid_decode('xyz', 'base58')", text),
            ("SELECT uuid_extract_timestamp_text('xyz')", text),
        ] {
            assert_eq!(sqlstate_of(|| Spi::run(q).unwrap()), code, "{q}");
        }
    }

    #[pg_test(error = "timestamp out of range for a UUIDv7")]
    fn bound_of_infinity_fails_with_its_message() {
        Spi::run("SELECT uuid_v7_upper_bound('infinity')").unwrap();
    }

    #[pg_test]
    fn strict_functions_return_null_for_null() {
        for q in [
            "SELECT uuid_generate_v7(NULL::interval)",
            &format!("SELECT {}(NULL)::text", ours("uuid_extract_timestamp")),
            &format!("SELECT {}(NULL)::text", ours("uuid_extract_version")),
            "SELECT uuid_v7_lower_bound(NULL)",
            "SELECT uuid_v7_upper_bound(NULL)",
            "SELECT uuid_v7_to_timestamptz(NULL)::text",
            "SELECT uuid_v7_to_timestamp(NULL)::text",
            "SELECT uuid_timestamptz_to_v7(NULL)",
            "SELECT uuid_timestamp_to_v7(NULL)",
            "SELECT uuid_timestamptz_to_v7(now(), NULL)",
            "SELECT uuid_generate_v8(NULL)",
            "SELECT uuid_generate_v8_name(NULL, 'x')",
            "SELECT uuid_generate_v8_name(gen_random_uuid(), 'x', NULL)",
            "SELECT uuid_generate_v5_name(NULL, 'x'::bytea)",
            "SELECT uuid_namespace(NULL)",
            "SELECT uuid_extract_timestamp_text(NULL)::text",
            "SELECT uuid_inspect(NULL)::text",
            "SELECT uuid_v6_lower_bound(NULL)",
            "SELECT uuid_v6_upper_bound(NULL)",
            "SELECT uuid_v1_to_v6(NULL)",
            "SELECT uuid_v6_to_v1(NULL)",
            "SELECT uuid_encode(NULL, 'hex')",
            "SELECT uuid_decode('x', NULL)::text",
        ] {
            assert_eq!(
                Spi::get_one::<String>(&format!("SELECT ({q})::text")).unwrap(),
                None,
                "{q}"
            );
        }
    }
}
