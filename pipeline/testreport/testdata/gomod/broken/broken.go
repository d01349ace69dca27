package broken

func F() int { return undefined }
