"""Deciding one match: tiers and eligibility, the places, the granted set (exactly,
with CP-SAT), the reasons, overrides and the room a request would find."""
