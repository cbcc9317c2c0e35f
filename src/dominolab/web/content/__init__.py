"""What the site teaches: the player's guide, the lessons and the rules page."""
