-- A login that may read and add rows but not create tables, for
-- "profdb export --no-create" into tables made beforehand (unquoted.sql).
-- ${USER} and ${PASSWORD} are the login's; ${NAMESPACE} is the database
-- holding the tables.

CREATE LOGIN ${USER} WITH PASSWORD = '${PASSWORD}', CHECK_POLICY = OFF;
GO
CREATE USER ${USER} FOR LOGIN ${USER};
GO
GRANT SELECT ON SCHEMA::dbo TO ${USER};
GO
GRANT INSERT ON SCHEMA::dbo TO ${USER};
GO
