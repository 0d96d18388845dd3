package sql

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on the database file at path, created
// if missing, held until the file returned is closed (the process ending
// releases it too). A durable SQLite store is one venue's: a second process
// on the same file failed the first one's running jobs as left over from a
// crash and served records the other had deleted from its memory. Only
// PostgreSQL is shared. The lock is flock(2), which SQLite's own fcntl
// locks ignore, so an operator's sqlite3 can still read the store; taken on
// the file itself (its inode), it holds through symlinks and hard links,
// which a lock file named after the path did not. Close the file only
// after SQLite's connections: closing any descriptor of a file drops the
// process's fcntl locks on it.
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another venue process: a SQLite store belongs to one venue (several venues share a postgres:// store)", path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return f, nil
}
