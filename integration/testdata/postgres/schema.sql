-- A separate schema for profdb's tables, with INSTANCES and RELATIONS
-- made by the DBA; profdb creates the profiler tables in it (--schema).
-- ${SCHEMA} is replaced by the test's schema name.

CREATE SCHEMA ${SCHEMA};
CREATE TABLE ${SCHEMA}.INSTANCES (
    CAPTION TEXT,
    COUNTER_DESCRIPTION TEXT,
    COUNTER_FREQUENCY NUMERIC(28,8),
    COUNTER_NAME TEXT,
    INST_ID BIGINT NOT NULL,
    PRIMARY KEY (INST_ID)
);
CREATE TABLE ${SCHEMA}.RELATIONS (
    COL_CHILD_TABLE TEXT,
    COL_PARENT_TABLE TEXT,
    ID BIGINT NOT NULL,
    INST_ID BIGINT NOT NULL,
    PRIMARY KEY (ID)
);
