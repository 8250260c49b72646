-- Removes the login of restricted.sql.

DROP USER IF EXISTS '${USER}'@'%';
