"""Benchmarks: each of our operations against the bare minimum, measured in the same run.

``python -m tests.benchmarks`` (``make bench``) runs them all; name modules to
run some (``python -m tests.benchmarks sync payloads``). Modules are named
``bench_*.py`` so pytest never collects them: timings are reported here, never
asserted in tests. See ``docs/benchmarks.md``.
"""
