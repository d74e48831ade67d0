"""The season: deciding jointly under its rules, what each rule counts, debts, the
report, its plot, and the price of deciding match by match."""
