"""pitchpass: match-day media access, decided exactly and explained."""
