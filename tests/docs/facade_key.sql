-- docs/reference.md's façade examples: the published test key
-- (docs/facade.md#test-vectors) as the database's key 1.
SELECT uuid_facade_key_import('\x000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f');
