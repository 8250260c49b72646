package integration

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Labels on every container the suite starts, so that it can find its own
// containers again without Ryuk.
const (
	// LabelSuite marks a container of profdb's integration suite.
	LabelSuite = "org.profdb.integration"
	// LabelPID is the process ID of the test binary that started it.
	LabelPID = "org.profdb.integration.pid"
	// LabelHost is the host name of the machine that started it.
	LabelHost = "org.profdb.integration.host"
)

// PrepareDocker readies testcontainers for this machine and for machines
// that reach no image registry. TestMain calls it before any container
// starts:
//
//   - TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 unless the user set it:
//     where /.dockerenv exists, testcontainers otherwise believes it runs
//     in a container and dials the default gateway instead of the port
//     published on the loopback interface;
//   - TESTCONTAINERS_RYUK_DISABLED=true when the reaper's image is not
//     present locally (and the user set neither that variable nor
//     TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX): the suite then removes its
//     containers itself (Shutdown, RemoveOwnContainers);
//   - removes the containers of earlier runs on this machine whose test
//     binary no longer runs (killed, timed out, or panicked).
//
// It returns a line for the log saying what it did, "" for nothing.
func PrepareDocker() string {
	var did []string
	if _, ok := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !ok {
		os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	cli, err := dockerClient()
	if err != nil {
		return ""
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		return ""
	}
	_, disabled := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED")
	_, prefixed := os.LookupEnv("TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX")
	if !disabled && !prefixed {
		//lint:ignore SA1019 the image testcontainers would start as its reaper.
		ryuk := testcontainers.ReaperDefaultImage
		if _, err := cli.ImageInspect(ctx, ryuk); err != nil {
			os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
			did = append(did, "image "+ryuk+" not present: Ryuk disabled, the suite removes its containers itself")
		}
	}
	if n, err := sweep(ctx, cli, func(c container.Summary) bool {
		pid, err := strconv.Atoi(c.Labels[LabelPID])
		return err == nil && !processAlive(pid)
	}); err != nil {
		did = append(did, "leftover containers: "+err.Error())
	} else if n > 0 {
		did = append(did, fmt.Sprintf("removed %d leftover container(s) of earlier runs", n))
	}
	if len(did) == 0 {
		return ""
	}
	msg := "integration:"
	for i, d := range did {
		if i > 0 {
			msg += ";"
		}
		msg += " " + d
	}
	return msg
}

// RemoveOwnContainers removes every container this test binary started,
// whatever state it is in. Shutdown and the signal handler of TestMain call
// it.
func RemoveOwnContainers() error {
	cli, err := dockerClient()
	if err != nil {
		return err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	own := strconv.Itoa(os.Getpid())
	_, err = sweep(ctx, cli, func(c container.Summary) bool { return c.Labels[LabelPID] == own })
	return err
}

// sweep removes the suite's containers on this machine that match.
func sweep(ctx context.Context, cli *client.Client, match func(container.Summary) bool) (int, error) {
	host, _ := os.Hostname()
	list, err := cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", LabelSuite+"=true", LabelHost+"="+host),
	})
	if err != nil {
		return 0, fmt.Errorf("list containers: %w", err)
	}
	n := 0
	var errs []error
	for _, c := range list.Items {
		if !match(c) {
			continue
		}
		if _, err := cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true}); err != nil {
			errs = append(errs, fmt.Errorf("remove container %.12s: %w", c.ID, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// ownLabels are the labels of a container this test binary starts.
func ownLabels() map[string]string {
	host, _ := os.Hostname()
	return map[string]string{
		LabelSuite: "true",
		LabelPID:   strconv.Itoa(os.Getpid()),
		LabelHost:  host,
	}
}

// loopbackPorts publishes every port the container exposes on 127.0.0.1
// only (testcontainers publishes on every interface otherwise). It must
// come after the options that expose ports.
func loopbackPorts() testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		var ports []network.Port
		for _, spec := range req.ExposedPorts {
			p, err := network.ParsePort(spec)
			if err != nil {
				return fmt.Errorf("exposed port %q: %w", spec, err)
			}
			ports = append(ports, p)
		}
		return testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			if hc.PortBindings == nil {
				hc.PortBindings = network.PortMap{}
			}
			for _, p := range ports {
				hc.PortBindings[p] = []network.PortBinding{{HostIP: netip.AddrFrom4([4]byte{127, 0, 0, 1}), HostPort: "0"}}
			}
		})(req)
	}
}

func dockerClient() (*client.Client, error) {
	return client.New(client.FromEnv, client.WithAPIVersionNegotiation())
}

// processAlive reports whether a process pid runs on this machine.
func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	if runtime.GOOS == "windows" {
		return true // FindProcess opened it
	}
	err = p.Signal(syscall.Signal(0))
	return err == nil || errors.Is(err, syscall.EPERM)
}
