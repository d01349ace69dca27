def truncate_number(number):
    whole = int(number)
      return number - whole
