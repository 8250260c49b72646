-- A login that may read and add rows but not create tables, for
-- "profdb export --no-create" into tables made beforehand (unquoted.sql).
-- ${USER} and ${PASSWORD} are the login's; ${NAMESPACE} is the schema
-- holding the tables.

CREATE ROLE ${USER} LOGIN PASSWORD '${PASSWORD}';
GRANT USAGE ON SCHEMA ${NAMESPACE} TO ${USER};
GRANT SELECT, INSERT ON ALL TABLES IN SCHEMA ${NAMESPACE} TO ${USER};
