"""Services, the use cases: who sees what (access), requests, consent and incidents
(entries), deciding, overriding, publishing and what-if (decisions), the typed data the
pages show (views, board), accounts and the admin's checks. The API and the pages call
these and nothing below them; the rules themselves are the core's."""
