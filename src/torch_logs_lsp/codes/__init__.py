"""The diagnostic codes: the table (:mod:`.table`: code, title, default severity,
fixability, first release), each code's documentation (:mod:`.doc`, from the packaged
``sections.md``) and ``docs/codes.md`` generated from both (:mod:`.markdown`)."""
