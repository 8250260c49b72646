package mysql

import (
	"database/sql/driver"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Connector = Dialect{}

// Connector returns a go-sql-driver/mysql connector for the driver DSN
// whose connections are opened with dial. It implements
// dialects.Connector. The driver's log of network errors is silenced:
// those errors reach profdb through dial's connections, and the driver
// would print them to standard error, unasked, beside profdb's message.
func (Dialect) Connector(driverDSN string, dial dialects.DialFunc) (driver.Connector, error) {
	cfg, err := mysql.ParseDSN(driverDSN)
	if err != nil {
		return nil, fmt.Errorf("mysql: %w", err)
	}
	cfg.DialFunc = dial
	cfg.Logger = &mysql.NopLogger{}
	return mysql.NewConnector(cfg)
}
