// Package galera tests profdb on a three-node MariaDB Galera cluster on
// 127.0.0.1: concurrent exporters on different nodes, whose allocation lock
// (GET_LOCK) holds on one node only, and a node that demands a primary key
// on every table (innodb_force_primary_key=ON).
//
// TestMain starts the cluster with the script beside this file (cluster
// start DIR: nodes on ports 4306, 4307 and 4308; PROFDB_GALERA_PORT moves
// them) and stops it at the end, also when the run is interrupted. With
// PROFDB_TEST_GALERA set to the three nodes' DSNs, comma-separated, the
// tests use that cluster instead. Without mariadbd, Galera 4 or rsync the
// tests skip, or fail under CI=true.
package galera
