module gpumend.example/bench/peer-go

go 1.19
