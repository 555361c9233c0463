package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver FerretDB's SQLite backend registers, named here for sql.Open
)

// backupFile is what `clinic-ferretdb backup` prints for each database, one JSON line each.
type backupFile struct {
	File    string `json:"file"`
	Bytes   int64  `json:"bytes"`
	Started string `json:"started"`
	Ms      int64  `json:"ms"`
}

// runBackup copies every database (<name>.sqlite) of a FerretDB SQLite data directory into outDir
// while the server runs: `VACUUM INTO` reads the database in one read transaction, so each copy is
// the database as it was at one moment (writers go on: WAL mode), whole and compacted. Each copy is
// then checked with `PRAGMA integrity_check`.
func runBackup(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: clinic-ferretdb backup <data-dir> <out-dir>")
		return 2
	}
	dataDir, outDir := args[0], args[1]
	files, err := filepath.Glob(filepath.Join(dataDir, "*.sqlite"))
	if err != nil || len(files) == 0 {
		fmt.Fprintf(os.Stderr, "no database (*.sqlite) in %s\n", dataDir)
		return 1
	}
	if err := os.MkdirAll(outDir, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := json.NewEncoder(os.Stdout)
	for _, file := range files {
		target := filepath.Join(outDir, filepath.Base(file))
		started := time.Now()
		if err := vacuumInto(file, target); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", file, err)
			return 1
		}
		info, err := os.Stat(target)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		_ = out.Encode(backupFile{
			File:    filepath.Base(file),
			Bytes:   info.Size(),
			Started: started.UTC().Format(time.RFC3339Nano),
			Ms:      time.Since(started).Milliseconds(),
		})
	}
	return 0
}

func vacuumInto(source, target string) error {
	db, err := sql.Open("sqlite", "file:"+source+"?_pragma=busy_timeout(30000)")
	if err != nil {
		return err
	}
	defer db.Close()
	// The copy is made empty, the owner's alone, before SQLite fills it: VACUUM INTO creates its file 0644.
	empty, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := empty.Close(); err != nil {
		return err
	}
	if _, err := db.Exec("VACUUM INTO '" + strings.ReplaceAll(target, "'", "''") + "'"); err != nil {
		return fmt.Errorf("VACUUM INTO: %w", err)
	}
	copyDB, err := sql.Open("sqlite", "file:"+target+"?mode=ro")
	if err != nil {
		return err
	}
	defer copyDB.Close()
	var result string
	if err := copyDB.QueryRow("PRAGMA integrity_check").Scan(&result); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	if result != "ok" {
		return fmt.Errorf("integrity check of the copy: %s", result)
	}
	return nil
}
