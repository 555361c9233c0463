// Command clinic-ferretdb runs FerretDB v1 embedded, with its SQLite backend,
// as the project's default MongoDB-compatible database server; `clinic-ferretdb
// backup` copies its databases while it runs (backup.go).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	// The databases hold patient data: every file and folder this process makes is its owner's alone
	// (SQLite's files, their -wal and -shm, a backup's copies), whatever the caller's umask.
	syscall.Umask(0o077)

	// `clinic-ferretdb backup <data-dir> <out-dir>`: an online copy of every database (backup.go).
	if len(os.Args) > 1 && os.Args[1] == "backup" {
		os.Exit(runBackup(os.Args[2:]))
	}

	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	listenUnix := flag.String("listen-unix", "", "if set, also listen on this Unix socket (clients on this machine spend less CPU per command than over TCP)")
	dataDir := flag.String("data-dir", ".data/ferretdb", "directory for SQLite database files")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	debugAddr := flag.String("debug-addr", "", "if set, serve Go profiling (/debug/pprof) on this loopback address")
	metricsAddr := flag.String("metrics-addr", "", "if set, serve Prometheus metrics (/metrics) on this loopback address")
	authUser := flag.String("auth-user", "", "every connection must authenticate (SCRAM) as this user, created on the first start")
	authPasswordFile := flag.String("auth-password-file", "", "file holding the password of --auth-user (kept out of the command line)")
	flag.Parse()

	// The embedded server is this machine's own: it never listens on a network another machine reaches.
	if host, _, err := net.SplitHostPort(*listen); err != nil || !isLoopback(host) {
		log.Fatalf("--listen %q: the embedded database listens on a loopback address only (127.0.0.1, ::1, localhost)", *listen)
	}
	// Anonymous connections could read and change every bill: there is no way to start without a user.
	if *authUser == "" {
		log.Fatal("--auth-user and --auth-password-file are required: every connection authenticates")
	}
	// Profiles show what the server holds in memory (and pprof's handlers cost CPU on demand): loopback only too.
	if host, _, err := net.SplitHostPort(*debugAddr); *debugAddr != "" && (err != nil || !isLoopback(host)) {
		log.Fatalf("--debug-addr %q: profiling listens on a loopback address only (127.0.0.1, ::1, localhost)", *debugAddr)
	}

	if host, _, err := net.SplitHostPort(*metricsAddr); *metricsAddr != "" && (err != nil || !isLoopback(host)) {
		log.Fatalf("--metrics-addr %q: metrics listen on a loopback address only (127.0.0.1, ::1, localhost)", *metricsAddr)
	}

	if *listenUnix != "" {
		if err := freeSocketPath(*listenUnix); err != nil {
			log.Fatal(err)
		}
	}

	if *debugAddr != "" {
		go func() { log.Println(http.ListenAndServe(*debugAddr, nil)) }()
	}

	abs, err := filepath.Abs(*dataDir)
	if err != nil {
		log.Fatal(err)
	}
	if err := ownersOnly(abs); err != nil {
		log.Fatal(err)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	secret, err := os.ReadFile(*authPasswordFile)
	if err != nil {
		log.Fatal(err)
	}
	password := strings.TrimSpace(string(secret))
	if password == "" {
		log.Fatal("--auth-password-file is empty")
	}
	// Users live in admin.system.users; clients authenticate against admin (the driver's default).
	auth := &ferretdb.AuthConfig{SetupDatabase: "admin", SetupUsername: *authUser, SetupPassword: password}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen, Unix: *listenUnix},
		Logger:   logger,
		Handler:  "sqlite",
		// Write transactions take the write lock when they begin, waiting their turn
		// (busy_timeout): begun as readers, concurrent updates failed with SQLITE_BUSY
		// when another writer committed between their read and their write.
		// Statement journals in memory: the update statements of one command share a transaction (patch
		// 0020), so each keeps a journal to undo itself alone, and one of a bill's (its nine indexes' pages)
		// outgrew the 64 KiB SQLite keeps in memory, spilling to a temporary file write by write.
		SQLiteURL: "file:" + abs + "/?_txlock=immediate&_pragma=temp_store(memory)",
		Auth:      auth,
	})
	if err != nil {
		log.Fatal(err)
	}

	if *metricsAddr != "" {
		// FerretDB's own metrics (patch 0022), with the Go runtime's and the process's.
		registry := prometheus.NewRegistry()
		registry.MustRegister(f, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
		go func() { log.Println(http.ListenAndServe(*metricsAddr, mux)) }()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	done := make(chan struct{})
	go func() {
		_ = f.Run(ctx)
		close(done)
	}()

	// The URI is only known once Run has bound the listener; printing it tells
	// the parent process the server is ready.
	fmt.Println(f.MongoDBURI())
	<-done
}

// ownersOnly makes dir (0700) or takes it back from other users, with the database files already in it
// (made 0644 before this rule): anyone who reads them reads every patient's record.
func ownersOnly(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, entry := range entries {
		info, err := entry.Info()
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() && info.Mode().Perm()&0o077 != 0 {
			if err := os.Chmod(filepath.Join(dir, entry.Name()), info.Mode().Perm()&0o700); err != nil {
				return err
			}
		}
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// freeSocketPath removes the socket a server killed without its shutdown left at path (binding fails while
// the file is there), after checking that nothing answers on it: a live server's socket is never taken over.
func freeSocketPath(path string) error {
	info, err := os.Lstat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&os.ModeSocket == 0 {
		return fmt.Errorf("--listen-unix %q: the path holds a file that is not a socket", path)
	}
	if conn, err := net.Dial("unix", path); err == nil {
		conn.Close()
		return fmt.Errorf("--listen-unix %q: another server listens on it", path)
	}
	return os.Remove(path)
}
