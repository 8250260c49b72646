package mysql

import (
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/profdb/profdb/ddl"
	"github.com/profdb/profdb/dialects"
	"github.com/profdb/profdb/dialects/dialecttest"
	"github.com/profdb/profdb/profilers"
)

func TestRegistered(t *testing.T) {
	// mariadb:// is an alias of mysql://.
	dialecttest.CheckRegistered(t, Dialect{}, "mysql", "mysql", "mysql://root@h/db", "mariadb://root@h/db", "MariaDB://root@h/db")
}

func TestQuote(t *testing.T) {
	d := Dialect{}
	dialecttest.CheckQuote(t, d, map[string]string{
		"INST_ID":   "`INST_ID`",
		"a`b":       "`a``b`",
		"``":        "``````",
		`x "y" 'z'`: "`x \"y\" 'z'`",
	})
	if got := dialects.Qualify(d, "", "T"); got != "`T`" {
		t.Errorf("Qualify without schema = %s", got)
	}
	if got := dialects.Qualify(d, "my`db", "T"); got != "`my``db`.`T`" {
		t.Errorf("Qualify = %s", got)
	}
	if got := d.StoredName("COL____COVERED"); got != "COL____COVERED" {
		t.Errorf("StoredName = %s", got)
	}
}

func TestPlaceholderAndLimits(t *testing.T) {
	d := Dialect{}
	if got := dialects.InsertSQL(d, dialects.Qualify(d, "", "T"), []string{"A", "B"}, 2); got != "INSERT INTO `T` (`A`, `B`) VALUES (?, ?), (?, ?)" {
		t.Errorf("InsertSQL = %s", got)
	}
	if l := d.Facts().Limits; l.MaxParams != 65535 || l.MaxRows != 0 {
		t.Errorf("Limits = %+v", l)
	}
}

func TestColumnType(t *testing.T) {
	d := Dialect{}
	dialecttest.CheckColumnTypes(t, d, map[ddl.Type]string{ddl.String: "LONGTEXT", ddl.Integer: "BIGINT", ddl.Float: "DOUBLE", ddl.Decimal: "DECIMAL(28,8)"})
}

func TestBind(t *testing.T) {
	d := Dialect{}
	if got := d.Bind(ddl.Decimal, ddl.Dec("-0.00000001")); got != "-0.00000001" {
		t.Errorf("Bind(Decimal) = %#v (%T), want a plain string", got, got)
	}
	dialecttest.CheckBindUnchanged(t, d, ddl.Integer, ddl.Float, ddl.String, ddl.Decimal)
}

func TestLockStatements(t *testing.T) {
	acquire, release := Dialect{}.Lock("")
	if strings.Join(acquire, ";") != "SELECT GET_LOCK(CONCAT('profdb.', MD5(DATABASE())), 600)" ||
		strings.Join(release, ";") != "SELECT RELEASE_LOCK(CONCAT('profdb.', MD5(DATABASE())))" {
		t.Errorf("Lock(\"\") = %q, %q", acquire, release)
	}
	acquire, _ = Dialect{}.Lock("o'brien")
	if strings.Join(acquire, ";") != "SELECT GET_LOCK(CONCAT('profdb.', MD5('o''brien')), 600)" {
		t.Errorf("Lock(o'brien) = %q", acquire)
	}
}

func TestCreateTableStatements(t *testing.T) {
	d := Dialect{}
	got := d.CreateTableIn("", profilers.Instances())
	want := "CREATE TABLE IF NOT EXISTS `INSTANCES` (\n" +
		"  `CAPTION` LONGTEXT NULL,\n" +
		"  `COUNTER_DESCRIPTION` LONGTEXT NULL,\n" +
		"  `COUNTER_FREQUENCY` DECIMAL(28,8) NULL,\n" +
		"  `COUNTER_NAME` LONGTEXT NULL,\n" +
		"  `INST_ID` BIGINT NOT NULL,\n" +
		"  PRIMARY KEY (`INST_ID`)\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
	if len(got) != 1 || got[0] != want {
		t.Errorf("INSTANCES:\n%s\nwant\n%s", strings.Join(got, ";\n"), want)
	}
	child := ddl.Table{Name: "P_CHILD", Parent: "P_PARENT", Columns: []ddl.Column{
		{Name: "COL_X", Type: ddl.Float}, {Name: "ID", Type: ddl.Integer}, {Name: "INST_ID", Type: ddl.Integer, NotNull: true},
		{Name: "PARENT_ID", Type: ddl.Integer}, {Name: "REC_ID", Type: ddl.Integer},
	}}
	got = d.CreateTableIn("prof", child)
	want = "CREATE TABLE IF NOT EXISTS `prof`.`P_CHILD` (\n" +
		"  `COL_X` DOUBLE NULL,\n" +
		"  `ID` BIGINT NULL,\n" +
		"  `INST_ID` BIGINT NOT NULL,\n" +
		"  `PARENT_ID` BIGINT NULL,\n" +
		"  `REC_ID` BIGINT NULL,\n" +
		"  INDEX `IX_P_CHILD_ID` (`INST_ID`, `ID`),\n" +
		"  INDEX `IX_P_CHILD_PARENT` (`INST_ID`, `PARENT_ID`)\n" +
		") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin"
	if len(got) != 1 || got[0] != want {
		t.Errorf("child:\n%s\nwant\n%s", strings.Join(got, ";\n"), want)
	}
}

const sqlModeParam = "sql_mode=%27STRICT_ALL_TABLES%2CNO_ZERO_IN_DATE%2CNO_ZERO_DATE%2CERROR_FOR_DIVISION_BY_ZERO%2CNO_ENGINE_SUBSTITUTION%2CNO_BACKSLASH_ESCAPES%27"

func TestDriverDSN(t *testing.T) {
	d := Dialect{}
	cases := map[string]string{
		"mysql://root@127.0.0.1:3306/test":                "root@tcp(127.0.0.1:3306)/test?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
		"mysql://root@db.example/test":                    "root@tcp(db.example:3306)/test?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
		"MySQL://u:p%40ss%3Aw%2Fd@[::1]:3307/prof":        "u:p@ss:w/d@tcp([::1]:3307)/prof?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
		"mysql:///test":                                   "tcp(127.0.0.1:3306)/test?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
		"mysql://root@unix(/run/mysqld/mysqld.sock)/test": "root@unix(/run/mysqld/mysqld.sock)/test?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
		"mysql://root@h/db?tls=skip-verify&timeout=5s&parseTime=false&charset=utf8mb4&time_zone=%27%2B00%3A00%27": "root@tcp(h:3306)/db?collation=utf8mb4_bin&timeout=5s&tls=skip-verify&maxAllowedPacket=0&" + sqlModeParam + "&time_zone=%27%2B00%3A00%27",
		"mysql://root@h/db?maxAllowedPacket=1048576":                                                              "root@tcp(h:3306)/db?collation=utf8mb4_bin&maxAllowedPacket=1048576&" + sqlModeParam,
		"mariadb://u:pw@h:3307/prof":                                                                              "u:pw@tcp(h:3307)/prof?collation=utf8mb4_bin&maxAllowedPacket=0&" + sqlModeParam,
	}
	for in, want := range cases {
		got, err := d.DriverDSN(in)
		if err != nil || got != want {
			t.Errorf("DriverDSN(%q) =\n%q, %v; want\n%q", in, got, err, want)
			continue
		}
		cfg, err := mysql.ParseDSN(got)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.ParseTime || cfg.InterpolateParams || cfg.MultiStatements || cfg.AllowAllFiles || cfg.Collation != "utf8mb4_bin" ||
			cfg.Params["sql_mode"] != "'"+SQLMode+"'" {
			t.Errorf("DriverDSN(%q): driver config %+v", in, cfg)
		}
	}
	for _, bad := range []string{
		"mysql://u:secret@h:notaport/db",
		"mysql://u:secret@h:99999/db",
		"mysql://u:secret@h/db#frag",
		"mysql://u:secret@h/a/b",
		"mysql://u:secret@h/db?x=%zz",
		"mysql://u:secret@h/db?parseTime=true",
		"mysql://u:secret@h/db?multiStatements=1",
		"mysql://u:secret@h/db?interpolateParams=true",
		"mysql://u:secret@h/db?charset=latin1",
		"mysql://u:secret@h/db?sql_mode=%27%27",
		"mysql://u:secret@h/db?timeout=soon",
		"mysql://u:secret@unix(/tmp/x.sock/db",
		"mysql://a%3Ab:secret@h/db",
		"mysql:u:secret@h/db",
		"postgres://u:secret@h/db",
	} {
		got, err := d.DriverDSN(bad)
		if err == nil {
			t.Errorf("DriverDSN(%q) = %q, want an error", bad, got)
			continue
		}
		if !strings.HasPrefix(err.Error(), "mysql: ") || strings.Contains(err.Error(), "secret") {
			t.Errorf("DriverDSN(%q) error %q: want a \"mysql: \" prefix and no password", bad, err)
		}
	}
}

// TestNoTempSchemas: MySQL has no temporary database (a TEMPORARY table
// lives in an ordinary one), so no schema is refused for writing.
func TestNoTempSchemas(t *testing.T) {
	if _, ok := any(Dialect{}).(dialects.TempSchemas); ok {
		t.Error("the mysql dialect claims temporary schemas")
	}
	dialecttest.CheckTempSchemas(t, Dialect{}, nil, []string{"", "prof", "temp", "TEMP", "tmp", "pg_temp", "#sql-temptable"})
}
