"""The lab run by the web app: studies of many computer matches, in the compute pool
(docs/web.md, "The lab")."""
