package serve

import (
	"context"

	"github.com/profdb/profdb/readback"
)

// SetBeforeRead sets the hook each request runs in its snapshot before
// its reads (nil for none).
func SetBeforeRead(f func(ctx context.Context, rd *readback.Reader) error) { beforeRead = f }
