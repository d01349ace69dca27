def parse_music(music_string):
    return [int(note) for note in music_string.split(' ')]
