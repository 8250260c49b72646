module example.com/figures

go 1.22
