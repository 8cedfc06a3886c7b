// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
// output.go - buffered standard output for celcheck's line reports.
package main

import (
	"bufio"
	"os"
)

func bufferedStdout() *bufio.Writer {
	return bufio.NewWriterSize(os.Stdout, 1<<16)
}
