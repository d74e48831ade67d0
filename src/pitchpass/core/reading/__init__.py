"""Reading: text to a plain document, and a document to a trusted Scenario or every
problem it has (the format's sections, fixture lists, zones, minutes)."""
