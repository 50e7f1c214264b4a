-- The commit watermark (docs/ordering.md#polling-without-missing-rows-the-commit-watermark): uuid_v7_watermark() in one session.
-- (Many writers, prepared transactions, parallel workers and a poller are
-- tests/cluster/watermark.py.)
CREATE EXTENSION uuid_ext;

SHOW uuid_ext.commit_watermark;
SELECT context, vartype, boot_val FROM pg_settings WHERE name = 'uuid_ext.commit_watermark';
SET uuid_ext.commit_watermark = off;
SELECT uuid_ext_info() -> 'commit_watermark' AS commit_watermark;

-- With no transaction in progress that drew a UUIDv7, the watermark is the
-- next value: above every UUIDv7 made, at or below the next one.
SELECT uuid_generate_v7() AS made \gset
SELECT uuid_v7_watermark() AS wm \gset
SELECT :'made'::uuid < :'wm'::uuid AS above_made, :'wm'::uuid <= uuid_generate_v7() AS at_or_below_next,
       uuid_extract_version(:'wm') AS version;

-- A transaction that drew a UUIDv7 holds the watermark at or below its
-- first value until it ends (its own reads see that too); it is released
-- at COMMIT and at ROLLBACK.
BEGIN;
SELECT uuid_generate_v7() AS mine \gset
SELECT uuid_generate_v7() AS mine2 \gset
SELECT uuid_v7_watermark() <= :'mine'::uuid AS held, uuid_ext_info() -> 'oldest_announcement_age_ms' IS NOT NULL AS announced;
COMMIT;
SELECT uuid_v7_watermark() > :'mine2'::uuid AS released_at_commit,
       uuid_ext_info() -> 'oldest_announcement_age_ms' AS oldest;
BEGIN;
SELECT uuid_generate_v7() AS mine \gset
SELECT uuid_v7_watermark() <= :'mine'::uuid AS held;
ROLLBACK;
SELECT uuid_v7_watermark() > :'mine'::uuid AS released_at_rollback;
-- A failed transaction releases it too.
BEGIN;
SELECT uuid_generate_v7() AS mine \gset
SELECT 1 / 0;
ROLLBACK;
SELECT uuid_v7_watermark() > :'mine'::uuid AS released_after_error;
-- A shifted UUIDv7 advances the word and announces like any other.
BEGIN;
SELECT uuid_generate_v7(interval '1 hour') IS NOT NULL AS shifted;
SELECT uuid_ext_info() -> 'oldest_announcement_age_ms' IS NOT NULL AS announced;
COMMIT;

-- Whose transactions count: this database's by default, every database's
-- with watermark_scope = server. Any session may choose for itself; its
-- own open transaction holds it back in either scope. (Another database's
-- open and prepared transactions: tests/cluster/tenants.py.)
SELECT context, vartype, boot_val, enumvals FROM pg_settings WHERE name = 'uuid_ext.watermark_scope';
SET uuid_ext.watermark_scope = server;
BEGIN;
SELECT uuid_generate_v7() AS mine \gset
SELECT uuid_v7_watermark() <= :'mine'::uuid AS held;
COMMIT;
SET uuid_ext.watermark_scope = cluster;
RESET uuid_ext.watermark_scope;

-- A session on its own word (uuid_ext.monotonicity = backend) announces
-- too: whatever a session sets, its keys are covered. Its transaction holds
-- the watermark at or below its first key (read here in the same
-- transaction, back on the shared word), and its keys are above the shared
-- word's value when it announced; once it has ended, the next UUIDv7 from
-- the shared sequencer moves the watermark past them.
SELECT uuid_generate_v7() AS shared_before \gset
SET uuid_ext.monotonicity = backend;
SELECT uuid_ext_info() -> 'commit_watermark' AS commit_watermark;
BEGIN;
SELECT uuid_generate_v7() AS mine \gset
SELECT uuid_generate_v7() AS mine2 \gset
SELECT uuid_ext_info() -> 'oldest_announcement_age_ms' IS NOT NULL AS announced,
       :'mine'::uuid > :'shared_before'::uuid AS above_the_shared_word;
SET LOCAL uuid_ext.monotonicity = shared;
SELECT uuid_v7_watermark() <= :'mine'::uuid AS held;
COMMIT;
RESET uuid_ext.monotonicity;
SELECT uuid_generate_v7() IS NOT NULL AS drawn;
SELECT uuid_v7_watermark() > :'mine2'::uuid AS released_past_its_keys;
-- A transaction that announced on the shared word and then switches to its
-- own still holds the watermark at or below every key it makes.
BEGIN;
SELECT uuid_generate_v7() AS first \gset
SET LOCAL uuid_ext.monotonicity = backend;
SELECT uuid_generate_v7() AS mine \gset
SET LOCAL uuid_ext.monotonicity = shared;
SELECT uuid_v7_watermark() <= :'first'::uuid AND :'first'::uuid < :'mine'::uuid AS held;
ROLLBACK;
SELECT uuid_generate_v7() IS NOT NULL AS drawn;
SELECT uuid_v7_watermark() > :'mine'::uuid AS released_at_rollback;

-- A session on its own word cannot read the watermark: an error naming the setting.
SET uuid_ext.monotonicity = backend;
SELECT uuid_v7_watermark();
\echo :LAST_ERROR_SQLSTATE
RESET uuid_ext.monotonicity;

DROP EXTENSION uuid_ext;
