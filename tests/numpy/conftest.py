# autograd_suite/ runs autograd's own test files through its run.py, in a child with the
# stand-in `autograd` package on its path; collected here, its shim/autograd/test_util.py
# would import that stand-in as `autograd` for the whole session (shadowing the real one
# that other tests compare with).
collect_ignore = ["autograd_suite"]
