"""How long what the desk keeps may be, in characters: the models' columns, the load's
checks (store), the API's schemas and the pages' forms all read these, so that what one
way in takes, the others take, and the database keeps."""

ID_LENGTH = 100  # an id (a match's, a request's, a zone's, ...): the models' `key` columns
NAME_LENGTH = 200  # a name shown (an organisation's, a venue's, a zone's)
TIER_LENGTH = 100  # a tier's name
RULE_LENGTH = 120  # a tier's rule (host, partner, club, any, org:<id>, kind:<kind>)
TEXT_LENGTH = 2000  # a reason, what happened: any text a user writes
LIST_LENGTH = 100  # a list a user sends of phases, consents, capacities
MANY_LENGTH = 10_000  # a list of requests a user sends (what-if's grants and refusals)
