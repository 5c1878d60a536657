from leaderboard.cli import main

main()
