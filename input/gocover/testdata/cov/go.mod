module example.com/cov

go 1.22
