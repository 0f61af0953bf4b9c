from cradle.learn.loop import main

main()
