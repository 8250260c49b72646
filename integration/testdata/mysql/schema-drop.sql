-- Drops the database of schema.sql with everything in it.

DROP DATABASE IF EXISTS ${SCHEMA};
