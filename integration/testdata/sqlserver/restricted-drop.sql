-- Removes the login of restricted.sql (its role goes with the database).

ALTER ROLE ${USER}_rw DROP MEMBER ${USER};
GO
DROP USER IF EXISTS ${USER};
GO
DROP LOGIN ${USER};
GO
