-- A login that may read and add rows but not create tables, for
-- "profdb export --no-create" into tables made beforehand (unquoted.sql).
-- ${USER} and ${PASSWORD} are the login's; ${NAMESPACE} is the database
-- holding the tables. The rights come through a role, so that the user
-- holds no grant of its own when restricted-drop.sql drops it (Babelfish
-- refuses to drop a user that does). The password meets SQL Server's
-- default policy (Babelfish has no CHECK_POLICY option).

CREATE LOGIN ${USER} WITH PASSWORD = '${PASSWORD}';
GO
CREATE USER ${USER} FOR LOGIN ${USER};
GO
CREATE ROLE ${USER}_rw;
GO
GRANT SELECT ON SCHEMA::dbo TO ${USER}_rw;
GO
GRANT INSERT ON SCHEMA::dbo TO ${USER}_rw;
GO
ALTER ROLE ${USER}_rw ADD MEMBER ${USER};
GO
