"""caselaw: the reference server that searches and reads court decisions (see docs/caselaw.md)."""
