"""What the book needs beyond the mathematics: the scale setting, interactive figures,
paper-vs-ours tables and the scan benchmark."""
