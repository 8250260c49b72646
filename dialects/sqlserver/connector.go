package sqlserver

import (
	"context"
	"database/sql/driver"
	"fmt"
	"net"

	mssql "github.com/microsoft/go-mssqldb"

	"github.com/profdb/profdb/dialects"
)

var _ dialects.Connector = Dialect{}

// Connector returns a go-mssqldb connector for the driver DSN whose
// connections (and SQL Browser queries) are opened with dial. It
// implements dialects.Connector.
func (Dialect) Connector(driverDSN string, dial dialects.DialFunc) (driver.Connector, error) {
	c, err := mssql.NewConnector(driverDSN)
	if err != nil {
		return nil, fmt.Errorf("sqlserver: %w", err)
	}
	c.Dialer = mssqlDialer{dial}
	return c, nil
}

// mssqlDialer adapts a DialFunc to go-mssqldb's Dialer.
type mssqlDialer struct{ dial dialects.DialFunc }

func (d mssqlDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return d.dial(ctx, network, addr)
}
