-- Removes the login of restricted.sql.

DROP USER IF EXISTS ${USER};
GO
DROP LOGIN ${USER};
GO
