// SPDX-FileCopyrightText: 2026 The gpumend authors
// SPDX-License-Identifier: Apache-2.0
module gpumend.example/bench/peer-go

go 1.19
