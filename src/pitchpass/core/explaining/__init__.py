"""Explaining a decision: the contract's JSON, what-if, camera coverage, and why a
refusal that looks unfair is not."""
