-- A login that may read and add rows but not create tables, for
-- "profdb export --no-create" into tables made beforehand (unquoted.sql).
-- ${USER} and ${PASSWORD} are the login's; ${NAMESPACE} is the database
-- holding the tables.

CREATE USER '${USER}'@'%' IDENTIFIED BY '${PASSWORD}';
GRANT SELECT, INSERT ON ${NAMESPACE}.* TO '${USER}'@'%';
