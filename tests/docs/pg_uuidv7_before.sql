-- A database as pg_uuidv7 users have it: the extension in public, a table
-- whose key defaults to its generator, another default that wraps one of its
-- functions, and some rows.
CREATE EXTENSION pg_uuidv7;
CREATE TABLE orders (id uuid PRIMARY KEY DEFAULT uuid_generate_v7(), item text);
CREATE TABLE audit (id uuid DEFAULT uuid_timestamptz_to_v7(now(), true), at timestamptz DEFAULT now());
INSERT INTO orders (item) SELECT 'item ' || n FROM generate_series(1, 100) n;
INSERT INTO audit DEFAULT VALUES;
