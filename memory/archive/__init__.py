"""The archive's cold storage: old months rolled out of the tree (rollup.py) into a ref of their
own (memory/git/cold.py), still searchable on purpose (search.py)."""
