-- Drops the schema of schema.sql with everything in it.

DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE;
