/* consumer.c: the smallest real use of an installed samebits. Sums 1..100
 * as f64 (exact: 5050) and checks the answer, and that the library it runs
 * against is the one whose header it was built with. */
#include <stdio.h>
#include <string.h>
#include <samebits.h>

int main(void)
{
    double x[100], sum = 0.0;
    for (int i = 0; i < 100; i++)
        x[i] = i + 1;
    const sb_reduction r = { .op = SB_SUM, .input = SB_F64 };
    const sb_status s = sb_reduce_host(r, x, NULL, 100, &sum);
    printf("samebits %s (library %s): sum = %.17g (%s)\n",
           SAMEBITS_VERSION_STRING, sb_version_string(), sum,
           sb_status_string(s));
    return s == SB_OK && sum == 5050.0
           && sb_version_number() == SAMEBITS_VERSION_NUMBER
           && strcmp(sb_version_string(), SAMEBITS_VERSION_STRING) == 0
           ? 0 : 1;
}
