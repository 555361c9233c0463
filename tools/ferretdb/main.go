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
	"net/http"
	_ "net/http/pprof"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	// `clinic-ferretdb backup <data-dir> <out-dir>`: an online copy of every database (backup.go).
	if len(os.Args) > 1 && os.Args[1] == "backup" {
		os.Exit(runBackup(os.Args[2:]))
	}

	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dataDir := flag.String("data-dir", ".data/ferretdb", "directory for SQLite database files")
	logLevel := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	debugAddr := flag.String("debug-addr", "", "if set, serve Go profiling (/debug/pprof) on this address")
	flag.Parse()

	if *debugAddr != "" {
		go func() { log.Println(http.ListenAndServe(*debugAddr, nil)) }()
	}

	abs, err := filepath.Abs(*dataDir)
	if err != nil {
		log.Fatal(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		log.Fatal(err)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		// Write transactions take the write lock when they begin, waiting their turn
		// (busy_timeout): begun as readers, concurrent updates failed with SQLITE_BUSY
		// when another writer committed between their read and their write.
		SQLiteURL: "file:" + abs + "/?_txlock=immediate",
	})
	if err != nil {
		log.Fatal(err)
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
